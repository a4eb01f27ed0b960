"""Evaluates flags with flagd's Python in-process evaluator (PyPI openfeature-flagd-core), for
Tests/FeatureFlagsTests/Conformance/FlagdDifferentialTests.swift.

Reads one JSON document from the file named by its first argument (with `--cbor` after it, the
package's own CBOR `fractional` is kept; otherwise flagd's Go evaluator's stands in for it): {"cases": [{"flags": <a flagd flag configuration>, "key": ...,
"type": "boolean" | "string" | "integer" | "float" | "object", "default": ..., "context": {...}}]}.
Writes one JSON array: for each case the value, variant, reason and error code an OpenFeature SDK
would return with this evaluator as its in-process resolver (an error is the caller's default
with reason ERROR and the error's code).
"""

import json
import logging
import sys

import mmh3
from openfeature.contrib.tools.flagd.core import FlagdCore
from openfeature.evaluation_context import EvaluationContext
from openfeature.exception import OpenFeatureError

RESOLVERS = {
    "boolean": "resolve_boolean_value",
    "string": "resolve_string_value",
    "integer": "resolve_integer_value",
    "float": "resolve_float_value",
    "object": "resolve_object_value",
}


MAX_WEIGHT_SUM = 2_147_483_647


def go_fractional(data, *args):
    """flagd's Go evaluator's `fractional` (open-feature/flagd, core/pkg/evaluator/fractional.go):
    the bucketing value is a string hashed as its UTF-8 bytes, or the flag key and the targeting
    key. openfeature-flagd-core 2.0.0 hashes the CBOR encoding of any value instead (flagd's
    proposed "fractional v3"), the one deliberate difference Docs/FeatureFlags.md lists for it; this
    stands in for it so that the rest of every rule holding a `fractional` is still compared."""
    if not args:
        return None
    values = list(args)
    if isinstance(values[0], str):
        bucket_by = values.pop(0)
    else:
        if values[0] is None:
            values.pop(0)
        targeting_key = data.get("targetingKey")
        if not isinstance(targeting_key, str) or not targeting_key:
            return None
        bucket_by = data.get("$flagd", {}).get("flagKey", "") + targeting_key
    buckets = []
    total = 0
    for value in values:
        if not isinstance(value, list) or not value:
            return None
        name = value[0]
        if name is not None and not isinstance(name, (str, bool, int, float)):
            return None
        weight = 1
        if len(value) >= 2 and value[1] is not None:
            if isinstance(value[1], bool) or not isinstance(value[1], (int, float)):
                return None
            if value[1] != int(value[1]) or value[1] > MAX_WEIGHT_SUM:
                return None
            weight = max(0, int(value[1]))
        total += weight
        buckets.append((name, weight))
    if total > MAX_WEIGHT_SUM or total == 0:
        return None
    point = (mmh3.hash(bucket_by.encode("utf-8"), signed=False) * total) >> 32
    end = 0
    for name, weight in buckets:
        end += weight
        if point < end:
            return name
    return None


def use_go_fractional():
    # The package's `targeting` name is the function; its module holds the operator table.
    sys.modules["openfeature.contrib.tools.flagd.core.targeting.targeting"].OPERATORS["fractional"] = go_fractional


def evaluate(case):
    core = FlagdCore()
    default = case["default"]
    try:
        core.set_flags(json.dumps(case["flags"]))
    except OpenFeatureError as error:
        return {"value": default, "variant": None, "reason": "ERROR", "errorCode": error.error_code.value,
                "loadError": str(error)}
    context = dict(case["context"])
    targeting_key = context.pop("targetingKey", None)
    try:
        details = getattr(core, RESOLVERS[case["type"]])(
            case["key"], default, EvaluationContext(targeting_key, context))
    except OpenFeatureError as error:
        return {"value": default, "variant": None, "reason": "ERROR", "errorCode": error.error_code.value}
    except Exception as error:  # what the SDK turns into GENERAL
        return {"value": default, "variant": None, "reason": "ERROR", "errorCode": "GENERAL",
                "exception": type(error).__name__}
    reason = details.reason.value if hasattr(details.reason, "value") else details.reason
    return {"value": details.value, "variant": details.variant, "reason": reason, "errorCode": None}


def main():
    # The evaluator logs every rule it cannot evaluate; the answers say what came of it.
    logging.disable(logging.CRITICAL)
    # --cbor keeps the package's own `fractional` (canonical CBOR), for FractionalBucketing.cbor.
    if "--cbor" not in sys.argv[2:]:
        use_go_fractional()
    with open(sys.argv[1], encoding="utf-8") as file:
        request = json.load(file)
    json.dump([evaluate(case) for case in request["cases"]], sys.stdout)


if __name__ == "__main__":
    main()
