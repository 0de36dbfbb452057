#!/usr/bin/env python3
"""Validates the CLI test fixtures (every *.json in the given directories or files) against the
snapshot schema. Also checks that the schema really is enforced, by validating a copy of each
fixture with a required key removed and expecting that to fail."""

import argparse
import copy
import glob
import json
import os
import sys

import jsonschema


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--schema", required=True)
    parser.add_argument("paths", nargs="+", help="fixture files or directories")
    args = parser.parse_args()

    with open(args.schema, encoding="utf-8") as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)

    files = []
    for path in args.paths:
        files += sorted(glob.glob(os.path.join(path, "*.json"))) if os.path.isdir(path) else [path]
    if not files:
        print("no fixtures found", file=sys.stderr)
        return 1

    failed = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for error in errors:
            where = "/".join(str(p) for p in error.path) or "(top)"
            print(f"{path}: {where}: {error.message}", file=sys.stderr)
        broken = copy.deepcopy(doc)
        broken.pop("objects", None)
        if validator.is_valid(broken):
            print(f"{path}: still valid without \"objects\": the schema is not enforced",
                  file=sys.stderr)
            errors.append(None)
        failed += bool(errors)
        print(f"{'FAIL' if errors else 'ok  '} {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
