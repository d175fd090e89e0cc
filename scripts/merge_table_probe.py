"""Merge the classes of a `plan_table.py --sizes ...` run (OUT/<GPU>.json) into the shipped table, each class with
the run's date and command: python3 scripts/merge_table_probe.py SHIPPED.json RUN.json"""

import json
import sys
from pathlib import Path

shipped, run = Path(sys.argv[1]), Path(sys.argv[2])
table, new = json.loads(shipped.read_text()), json.loads(run.read_text())
for key, entry in new["classes"].items():
    table["classes"][key] = {**{f: v for f, v in entry.items() if f != "candidates"}, "date": new["date"],
                             "command": new["command"]}
shipped.write_text(json.dumps(table, indent=1))
print("merged", len(new["classes"]), "classes")
