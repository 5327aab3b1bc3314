#!/usr/bin/env python3
"""Validates platformd replies against the OpenRPC document the server published.

Reads a JSON file {"document": <rpc.discover result>, "samples": [{"method": M, "reply": R}, ...]}
and checks each reply's result against its method's result schema, and each error object against
components.schemas.Error, with the jsonschema package (draft 7). Prints one line per problem and
a closing "N passed, N failed" line; exits 1 when any sample fails, 2 when jsonschema is missing.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("jsonschema is not installed (pip install jsonschema)")
    sys.exit(2)


def main(path):
    with open(path) as handle:
        bundle = json.load(handle)
    document = bundle["document"]
    results = {m["name"]: m["result"]["schema"] for m in document["methods"]}
    jsonschema.Draft7Validator.check_schema({"components": document["components"]})
    passed = failed = 0
    for sample in bundle["samples"]:
        method, reply = sample["method"], sample["reply"]
        if "error" in reply:
            schema, value = {"$ref": "#/components/schemas/Error"}, reply["error"]
        else:
            schema, value = results[method], reply["result"]
        root = dict(schema, components=document["components"])
        errors = list(jsonschema.Draft7Validator(root).iter_errors(value))
        if errors:
            failed += 1
            for error in errors:
                print(f"{method}: {error.message} at {list(error.absolute_path)}")
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
