import PlatformCore
import Testing

/// Language tags in the case CLDR writes them, `_` read as `-`, anything else refused.
@Suite struct LocaleTagTests {
    @Test(arguments: [
        ("en", "en"), ("EN", "en"), ("es_mx", "es-MX"), ("es-MX", "es-MX"), ("zh-hant-tw", "zh-Hant-TW"),
        ("sr_Latn_RS", "sr-Latn-RS"), ("de-CH-1996", "de-CH-1996"), ("es-419", "es-419"),
    ])
    func aTagIsWrittenInItsCanonicalCase(raw: String, tag: String) {
        #expect(LocaleTag.normalized(raw) == tag)
    }

    @Test(arguments: ["", "e", "abcdefghi", "en-", "-en", "en--US", "_", "en US", "en-US-", "1n", "é", "en-abcdefghi", "a-b-c-d-e-f-g-h-i"])
    func anythingElseIsNoTag(raw: String) {
        #expect(LocaleTag.normalized(raw) == nil)
    }
}
