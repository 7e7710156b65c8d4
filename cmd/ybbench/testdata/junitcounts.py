# Reads a junit.xml with junitparser, as CI tooling does, and prints what it
# found as JSON: the suite's counts, the counts from its test cases, and
# the failed cases. Run by junit_integration_test.go with the venv's python.
import json, sys
from junitparser import JUnitXml, Failure, Error, Skipped
xml = JUnitXml.fromfile(sys.argv[1])
suites = list(xml)
cases = [c for s in suites for c in s]
def count(kind):
    return sum(1 for c in cases if any(isinstance(r, kind) for r in c.result))
print(json.dumps({
    "suites": len(suites),
    "attributes": {"tests": xml.tests, "failures": xml.failures, "errors": xml.errors, "skipped": xml.skipped},
    "cases": {"tests": len(cases), "failures": count(Failure), "errors": count(Error), "skipped": count(Skipped)},
    "failed": [{"classname": c.classname, "name": c.name, "message": r.message} for c in cases for r in c.result if isinstance(r, Failure)],
}))
