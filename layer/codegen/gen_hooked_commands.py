"""hooked_commands.txt: the listing diffed against tests/golden/."""

from typing import Dict

from classify import GENERATED_KINDS, Classified
from emit import Plan


FILES = ("hooked_commands.txt",)


def emit_hooked_txt(classes: Dict[str, Classified]) -> str:
    lines = []
    for c in classes.values():
        if c.kind not in GENERATED_KINDS + ("manual",):
            continue
        types = ",".join(c.handle_types) or "-"
        lines.append(f"{c.command.name}\t{c.kind}\t{types}")
        lines += [f"{a}\talias-of {c.command.name}\t{types}" for a in c.command.aliases]
    return "\n".join(sorted(lines)) + "\n"


def render(plan: Plan) -> Dict[str, str]:
    return {"hooked_commands.txt": emit_hooked_txt(plan.classes)}
