import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage

/// Text made safe for HTML: what every page here builds its markup from. Everything a plugin, a
/// person or a request gave goes through `HTML.text` or `HTML.attribute`; markup is only ever
/// what this module writes itself.
enum HTML {
    /// `text` for an element's content.
    static func text(_ text: String) -> String {
        escaped(text, quotes: false)
    }

    /// `text` for a double-quoted attribute value.
    static func attribute(_ text: String) -> String {
        escaped(text, quotes: true)
    }

    /// Escaped by Unicode scalar, not by character: a quote followed by a combining mark is one
    /// character that is not a quote, yet it ends an attribute all the same.
    static func escaped(_ text: String, quotes: Bool) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
            case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
            case "\"" where quotes: escaped.append(contentsOf: "&quot;".unicodeScalars)
            case "'" where quotes: escaped.append(contentsOf: "&#39;".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// A whole page: the document, its language, its title, the stylesheet and script served by
    /// platformd itself, and `body`.
    /// `head`: more of the head, markup this module wrote (a refresh).
    /// `chrome`: a tenant's page: its theme's stylesheet, its name (and logo) above the body and
    /// its footer below; the title ends with the app's name.
    static func page(title: String, language: String, body: String, head: String = "", chrome: PageChrome? = nil) -> String {
        let fullTitle = chrome.map { title.isEmpty ? $0.appName : "\(title) · \($0.appName)" } ?? title
        let theme = chrome.map { "\n<link rel=\"stylesheet\" href=\"\(attribute($0.stylesheet))\">" } ?? ""
        return """
            <!DOCTYPE html>
            <html lang="\(attribute(language))">
            <head>
            <meta charset="utf-8">\(head.isEmpty ? "" : "\n" + head)
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(text(fullTitle))</title>
            <link rel="stylesheet" href="/assets/platformd.css?v=\(WebAssets.cssVersion)">\(theme)
            <script src="/assets/platformd.js?v=\(WebAssets.javascriptVersion)" defer></script>
            </head>
            <body>
            \(chrome?.header ?? "")\(body)
            \(chrome?.footer ?? "")</body>
            </html>
            """
    }

    /// Emoji in `text` wrapped as decoration (`aria-hidden`, and hidden by the page's script
    /// where the browser has no emoji font), the rest escaped.
    static func decorated(_ text: String) -> String {
        var html = ""
        var pending = ""
        for character in text {
            if isEmoji(character) {
                html += Self.text(pending)
                pending = ""
                html += "<span class=\"emoji\" aria-hidden=\"true\">\(character)</span>"
            } else {
                pending.append(character)
            }
        }
        return html + Self.text(pending)
    }

    static func isEmoji(_ character: Character) -> Bool {
        guard let first = character.unicodeScalars.first else { return false }
        if first.properties.isEmojiPresentation { return true }
        return first.properties.isEmoji && character.unicodeScalars.contains { $0.value == 0xFE0F }
    }
}

/// What a tenant's page carries around its body: the theme's stylesheet, the app's name and
/// logo, its footer line.
struct PageChrome {
    let tenant: String
    let appName: String
    let hasLogo: Bool
    let styleVersion: String
    /// The theme's footer line in the page's language, if the theme has one.
    let footerText: String?

    init(tenant: String, look: HostedLook, footerText: String?) {
        self.tenant = tenant
        self.appName = look.appName
        self.hasLogo = look.logo != nil
        // The logo's bytes too: a new logo at the same URL is fetched anew with the stylesheet's.
        self.styleVersion = WebAssets.version(of: ThemeStyle.stylesheet(look) + String(decoding: look.logo?.bytes ?? [], as: UTF8.self))
        self.footerText = footerText
    }

    /// Versioned by its content, like the platform's own (a changed brand is fetched anew).
    var stylesheet: String { "/assets/tenant/\(HostedFlow.query(tenant))/theme.css?v=\(styleVersion)" }

    var header: String {
        let logo = hasLogo ? "<img src=\"/assets/tenant/\(HTML.attribute(HostedFlow.query(tenant)))/logo?v=\(styleVersion)\" alt=\"\">" : ""
        return "<header class=\"app-bar\">\(logo)<span class=\"app-name\">\(HTML.text(appName))</span></header>\n"
    }

    var footer: String {
        guard let footerText else { return "" }
        return "<footer class=\"app-footer\"><p>\(HTML.text(footerText))</p></footer>\n"
    }
}

/// An `application/x-www-form-urlencoded` body, its pairs in the order they were sent.
struct FormBody {
    let pairs: [(name: String, value: String)]

    init(_ bytes: [UInt8]) {
        pairs = bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            return (Self.decode(parts[0]), parts.count > 1 ? Self.decode(parts[1]) : "")
        }
    }

    /// The last value sent under `name`.
    subscript(_ name: String) -> String? { pairs.last { $0.name == name }?.value }

    /// Every value sent under `name`, in order.
    func all(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    /// Whether anything was sent under `name`.
    func has(_ name: String) -> Bool { pairs.contains { $0.name == name } }

    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex + 0, bytes.distance(from: index, to: bytes.endIndex) > 2,
                let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Cookies: reading a request's, and the `Set-Cookie` value of one this server sets.
enum Cookies {
    /// The value of cookie `name` in a `Cookie` header.
    static func value(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0] == name { return pair[1] }
        }
        return nil
    }

    /// HttpOnly and SameSite=Strict always; Secure unless the listener is on a loopback
    /// address (a browser keeps a Secure cookie only over HTTPS, which a proxy in front gives).
    static func set(_ name: String, _ value: String, path: String, secure: Bool, maxAge: Int? = nil) -> String {
        var cookie = "\(name)=\(value); Path=\(path); HttpOnly; SameSite=Strict"
        if secure { cookie += "; Secure" }
        if let maxAge { cookie += "; Max-Age=\(maxAge)" }
        return cookie
    }
}
