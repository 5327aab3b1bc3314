#!/usr/bin/env python3
"""The input schemas `platformd mcp` lists, checked by jsonschema (the reference validator).

Usage: mcp_answer_schemas.py PLATFORMD_BINARY WALKS_JSON

WALKS_JSON is a file holding `{ TENANT: [VALUES, ...] }`: for each tenant, the values of each
submit of a walk the server accepts. For each tenant, walks the flow through `onboarding_answer`
with those answers; before each answer, lists the tools and checks that every input schema is a valid
JSON Schema (draft 2020-12, MCP's default dialect) and that the answer about to be sent validates
against the answer tool's schema for that step, so the schema never turns away an answer the
server takes. Prints one line per problem and a closing "N passed, N failed"; exits 1 when a
check failed, 2 when jsonschema is missing.
"""
import json
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    print("jsonschema is not installed (pip install jsonschema)")
    sys.exit(2)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(64)
    with open(sys.argv[2], encoding="utf-8") as walks_file:
        walks = json.load(walks_file)
    passed = failed = 0

    def check(condition, what):
        nonlocal passed, failed
        if condition:
            passed += 1
        else:
            failed += 1
            print(f"FAILED: {what}")

    for tenant, answers in walks.items():
        server = subprocess.Popen(
            [sys.argv[1], "mcp", "--tenant", tenant, "--user-id", "schemas", "--db", ":memory:"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        next_id = 0

        def request(method, params=None):
            nonlocal next_id
            next_id += 1
            message = {"jsonrpc": "2.0", "id": next_id, "method": method}
            if params is not None:
                message["params"] = params
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
            while True:
                reply = json.loads(server.stdout.readline())
                if reply.get("id") == next_id:
                    return reply

        request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "schemas", "version": "1"}})
        request("tools/call", {"name": "onboarding_status"})
        for index, values in enumerate(answers):
            tools = request("tools/list")["result"]["tools"]
            for tool in tools:
                try:
                    jsonschema.Draft202012Validator.check_schema(tool["inputSchema"])
                    check(True, "")
                except jsonschema.SchemaError as error:
                    check(False, f"{tenant} answer {index}: {tool['name']}'s input schema is not valid: {error.message}")
            schema = next(tool for tool in tools if tool["name"] == "onboarding_answer")["inputSchema"]
            validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
            problems = [error.message for error in validator.iter_errors({"values": values})]
            check(not problems, f"{tenant} answer {index} {json.dumps(values)} breaks the answer schema: {problems}")
            result = request("tools/call", {"name": "onboarding_answer", "arguments": {"values": values}})["result"]
            check(result["isError"] is False, f"{tenant} answer {index} refused: {result['content'][0]['text'][:300]}")
        status = request("tools/call", {"name": "onboarding_status"})["result"]["structuredContent"]["status"]
        check(status == "completed", f"{tenant} did not complete: {status}")
        server.stdin.close()
        check(server.wait(timeout=30) == 0, f"{tenant}: platformd mcp did not exit 0")

    print(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()
