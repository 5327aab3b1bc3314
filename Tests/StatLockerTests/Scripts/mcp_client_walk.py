#!/usr/bin/env python3
"""`platformd mcp` driven by the official MCP Python SDK (the `mcp` package) as a real client.

Usage: mcp_client_walk.py PLATFORMD_BINARY DATABASE

Starts `platformd mcp --tenant statlocker --user-id py-walker --first-name Alex --db DATABASE`
through `mcp.client.stdio.stdio_client`, initialises a `ClientSession`, lists the tools, walks
StatLocker to completion with one wrong answer, one back and one edit on the way, reads the
resources and the prompt, and prints one line per failed check and a closing
"N passed, N failed". Exits 1 when a check failed, 2 when the mcp package is missing.
Works with the package's 1.x (camelCase attributes) and 2.x (snake_case) models.
"""
import asyncio
import json
import sys

try:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
except ImportError:
    print("the mcp package is not installed (pip install mcp)")
    sys.exit(2)

TOOLS = {"onboarding_status", "onboarding_answer", "onboarding_back", "onboarding_edit", "onboarding_search"}
GOALS = ["g-mid-jv-dc-50", "g-mid-jv-goals-28", {"title": "Win 60% of draws", "targetValue": 60, "unit": "%"}]
TEAM = {
    "hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": True,
    "clubTeamName": "Laxachusetts", "clubCity": "Boston", "clubState": "MA",
}


def field(obj, snake, camel=None):
    """An attribute under the 2.x name or the 1.x one."""
    for name in (snake, camel or snake):
        if hasattr(obj, name):
            return getattr(obj, name)
    return None


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, condition, what, detail=""):
        if condition:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAILED: {what}{': ' + str(detail)[:600] if detail != '' else ''}")
        return condition


def text_of(result):
    return "\n".join(item.text for item in result.content if getattr(item, "type", "") == "text")


async def walk(binary, database):
    checks = Checks()
    notifications = []

    async def on_message(message):
        # Server notifications (tools/list_changed) and anything else the session hands over.
        notifications.append(message)

    parameters = StdioServerParameters(
        command=binary,
        args=["mcp", "--tenant", "statlocker", "--user-id", "py-walker", "--first-name", "Alex", "--db", database],
    )
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            version = field(init, "protocol_version", "protocolVersion")
            checks.check(version in ("2025-06-18", "2025-11-25"), "negotiated protocol version", version)
            server_info = field(init, "server_info", "serverInfo")
            checks.check(server_info is not None and server_info.name == "platformd", "server name", server_info)
            capabilities = field(init, "capabilities")
            tools_capability = field(capabilities, "tools")
            checks.check(tools_capability is not None and field(tools_capability, "list_changed", "listChanged") is True,
                         "tools.listChanged declared", capabilities)

            listed = await session.list_tools()
            names = {tool.name for tool in listed.tools}
            checks.check(names == TOOLS, "the five tools are listed", sorted(names))
            for tool in listed.tools:
                schema = field(tool, "input_schema", "inputSchema")
                checks.check(isinstance(schema, dict) and schema.get("type") == "object", f"{tool.name} has an object input schema", schema)

            async def call(name, arguments=None, expect_error=False):
                result = await session.call_tool(name, arguments or {})
                is_error = bool(field(result, "is_error", "isError"))
                structured = field(result, "structured_content", "structuredContent")
                checks.check(is_error == expect_error, f"{name} {json.dumps(arguments or {})} isError is {expect_error}",
                             text_of(result))
                checks.check(isinstance(structured, dict), f"{name} has structured content", structured)
                checks.check(text_of(result).strip() != "", f"{name} has a text rendering")
                return result, structured or {}

            _, view = await call("onboarding_status")
            checks.check(view.get("step", {}).get("id") == "sport", "status starts on sport", view.get("step"))
            checks.check(view.get("step", {}).get("title") == "Hey Alex 👋 What sport do you play?", "personalised title",
                         view.get("step", {}).get("title"))
            start_revision = view.get("revision")

            # After status started the session, the answer tool describes the sport step.
            listed = await session.list_tools()
            answer_tool = next(tool for tool in listed.tools if tool.name == "onboarding_answer")
            sport_schema = field(answer_tool, "input_schema", "inputSchema")["properties"]["values"]["properties"].get("sport", {})
            checks.check("lacrosse" in sport_schema.get("enum", []), "answer schema lists the sport options", sport_schema)

            # One wrong answer: a locked sport is refused in the app's voice and nothing is saved.
            wrong, refused = await call("onboarding_answer", {"values": {"sport": "basketball"}}, expect_error=True)
            checks.check("coming soon" in text_of(wrong).lower(), "the refusal text carries the app's message", text_of(wrong))
            errors = refused.get("errors") or []
            checks.check(len(errors) == 1 and errors[0].get("field") == "sport" and errors[0].get("code") == "locked",
                         "structured errors name the field and code", errors)
            checks.check(refused.get("session", {}).get("revision") == start_revision, "the refused answer moved nothing", refused.get("session"))
            _, view = await call("onboarding_status")
            checks.check(view.get("revision") == start_revision and view["step"]["id"] == "sport", "nothing saved after the refusal", view.get("revision"))

            steps = [
                ("sport", {"sport": "lacrosse"}),
                ("welcome_journey", {}),
                ("team_gender", {"teamGender": "girls"}),
                ("profile_details", {"gradYear": 2026, "level": "JV"}),
            ]
            for step, values in steps:
                checks.check(view["step"]["id"] == step, f"on step {step}", view["step"]["id"])
                _, view = await call("onboarding_answer", {"values": values})

            # One back: from position to profile_details, with the answers kept.
            checks.check(view["step"]["id"] == "position", "on step position", view["step"]["id"])
            back, view = await call("onboarding_back")
            checks.check(view["step"]["id"] == "profile_details", "back goes to profile_details", view["step"]["id"])
            saved = {f["id"]: f.get("value") for f in view["step"]["fields"]}
            checks.check(saved.get("gradYear") == 2026 and saved.get("level") == "JV", "back keeps the answers", saved)
            checks.check("Saved answer: 2026" in text_of(back), "the text shows the saved answer", text_of(back))
            _, view = await call("onboarding_answer", {"values": {"gradYear": 2026, "level": "JV"}})

            steps = [
                ("position", {"position": "Midfield"}),
                ("team_info", TEAM),
                ("season_goals", {"seasonGoals": GOALS}),
                ("goals_locked_in", {}),
                ("tone_quiz", {"aiTone": "Analyst"}),
                ("almost_there", {}),
            ]
            for step, values in steps:
                checks.check(view["step"]["id"] == step, f"on step {step}", view["step"]["id"])
                _, view = await call("onboarding_answer", {"values": values})
            checks.check(view["step"]["id"] == "review", "on the review", view["step"]["id"])

            # One edit: the review's Edit goes back to the goals; walk forward again.
            _, view = await call("onboarding_edit", {"stepId": "season_goals"})
            checks.check(view["step"]["id"] == "season_goals", "edit goes to season_goals", view["step"]["id"])
            goals = view["step"]["fields"][0].get("value")
            checks.check(isinstance(goals, list) and len(goals) == 3, "edit shows the saved goals", goals)
            for values in ({"seasonGoals": goals}, {}, {"aiTone": "Captain"}, {}):
                _, view = await call("onboarding_answer", {"values": values})
            checks.check(view["step"]["id"] == "review", "back on the review", view["step"]["id"])

            done, view = await call("onboarding_answer", {"values": {}})
            checks.check(view.get("status") == "completed", "the session completes", view.get("status"))
            checks.check("Welcome to StatLocker, Alex!" in text_of(done), "the completion message is shown", text_of(done))
            after, _ = await call("onboarding_answer", {"values": {}}, expect_error=True)
            checks.check("nothing left to answer" in text_of(after).lower(), "answering after completion is refused", text_of(after))

            resources = await session.list_resources()
            uris = {str(resource.uri) for resource in resources.resources}
            checks.check(uris == {"platformd://statlocker/flow.mmd", "platformd://statlocker/py-walker/current-step"}, "resources listed", uris)
            diagram = await session.read_resource("platformd://statlocker/flow.mmd")
            checks.check(diagram.contents[0].text.startswith("flowchart"), "the flow resource is a Mermaid flowchart", diagram.contents[0].text[:80])
            current = await session.read_resource("platformd://statlocker/py-walker/current-step")
            checks.check(json.loads(current.contents[0].text).get("status") == "completed", "the current-step resource shows the completion")

            prompts = await session.list_prompts()
            checks.check([prompt.name for prompt in prompts.prompts] == ["guide_onboarding"], "the prompt is listed")
            prompt = await session.get_prompt("guide_onboarding")
            guide = prompt.messages[0].content.text
            checks.check("one step at a time" in guide and "never invent" in guide.lower(), "the prompt guides the assistant", guide[:200])

            changed = [m for m in notifications if "list_changed" in repr(m).lower() or "ToolListChanged" in type(getattr(m, "root", m)).__name__]
            checks.check(len(changed) > 0, "tools/list_changed notifications arrived", [type(m).__name__ for m in notifications][:5])

    print(f"{checks.passed} passed, {checks.failed} failed")
    return checks.failed == 0


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(64)
    ok = asyncio.run(walk(sys.argv[1], sys.argv[2]))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
