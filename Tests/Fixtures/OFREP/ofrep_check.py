"""The reverse check of the OFREP test server: OpenFeature's own Python OFREP provider
(openfeature-provider-ofrep) evaluates the cases given on standard input against it, and every
raw answer is checked against JSON Schemas written from open-feature/protocol's
service/openapi.yaml (components/schemas).

Input (JSON): {"endpoint": URL, "cases": [{"key", "type", "default", "context"}]}.
Output (JSON): {"results": [{"value", "variant", "reason", "errorCode"}], "schemaErrors": [...]}.
"""
import json
import sys

import jsonschema
import requests
from openfeature import api
from openfeature.contrib.provider.ofrep import OFREPProvider
from openfeature.evaluation_context import EvaluationContext

KEY = {"type": "string"}
METADATA = {"type": "object", "additionalProperties": {"type": ["boolean", "string", "number"]}}
VALUE = {
    # booleanFlag, stringFlag, integerFlag, floatFlag, objectFlag. The document says oneOf, but an
    # integer is also a number, so an integer value would match two; anyOf is what it means.
    "anyOf": [
        {"type": "object", "required": ["value"], "properties": {"value": {"type": t}}}
        for t in ["boolean", "string", "integer", "number", "object"]
    ]
    # codeDefaultFlag (the protocol's ADR 0006): no value, the caller's default applies.
    + [{"type": "object", "not": {"required": ["value"]}}]
}
EVALUATION_SUCCESS = {
    "allOf": [
        {
            "type": "object",
            "required": ["key"],
            # A success carries no errorCode: without this, a failure would also read as a
            # codeDefaultFlag success, and a bulk entry would match both branches of its oneOf.
            "not": {"required": ["errorCode"]},
            "properties": {
                "key": KEY,
                "reason": {"type": "string"},
                "variant": {"type": "string"},
                "metadata": METADATA,
            },
        },
        VALUE,
    ]
}
EVALUATION_FAILURE = {
    "type": "object",
    "required": ["key", "errorCode"],
    "properties": {
        "key": KEY,
        "errorCode": {"enum": ["PARSE_ERROR", "TARGETING_KEY_MISSING", "INVALID_CONTEXT", "GENERAL"]},
        "errorDetails": {"type": "string"},
    },
}
FLAG_NOT_FOUND = {
    "type": "object",
    "required": ["key", "errorCode"],
    "properties": {"key": KEY, "errorCode": {"enum": ["FLAG_NOT_FOUND"]}, "errorDetails": {"type": "string"}},
}
BULK_SUCCESS = {
    "type": "object",
    "required": ["flags"],
    "properties": {"flags": {"type": "array", "items": {"oneOf": [EVALUATION_SUCCESS, EVALUATION_FAILURE]}}},
}
BY_STATUS = {200: EVALUATION_SUCCESS, 400: EVALUATION_FAILURE, 404: FLAG_NOT_FOUND}


def main():
    request = json.load(sys.stdin)
    endpoint = request["endpoint"]
    api.set_provider(OFREPProvider(endpoint, timeout=5.0))
    client = api.get_client()
    results = []
    schema_errors = []
    for case in request["cases"]:
        raw_context = case.get("context") or {}
        attributes = {k: v for k, v in raw_context.items() if k != "targetingKey"}
        context = EvaluationContext(raw_context.get("targetingKey"), attributes)
        resolve = {
            "bool": client.get_boolean_details,
            "string": client.get_string_details,
            "int": client.get_integer_details,
            "double": client.get_float_details,
            "object": client.get_object_details,
        }[case["type"]]
        details = resolve(case["key"], case["default"], context)
        results.append(
            {
                "value": details.value,
                "variant": details.variant,
                "reason": str(details.reason.value) if details.reason else None,
                "errorCode": str(details.error_code.value) if details.error_code else None,
            }
        )
        answer = requests.post(
            f"{endpoint}/ofrep/v1/evaluate/flags/{case['key']}", json={"context": raw_context}, timeout=5.0
        )
        schema = BY_STATUS.get(answer.status_code)
        if schema is None:
            schema_errors.append(f"{case['key']}: status {answer.status_code} is not in the document")
            continue
        try:
            jsonschema.validate(answer.json(), schema)
        except jsonschema.ValidationError as error:
            schema_errors.append(f"{case['key']}: {error.message}")
    bulk = requests.post(f"{endpoint}/ofrep/v1/evaluate/flags", json={"context": {}}, timeout=5.0)
    try:
        jsonschema.validate(bulk.json(), BULK_SUCCESS)
    except jsonschema.ValidationError as error:
        schema_errors.append(f"bulk: {error.message}")
    json.dump({"results": results, "schemaErrors": schema_errors}, sys.stdout)


main()
