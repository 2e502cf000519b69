#!/usr/bin/env python3
"""A minimal outside bot for `dippouch bot`: reads one JSON request a line, answers one JSON line.

For every unit it moves into a supply centre it does not own when it can, and holds otherwise; it builds as
many units as it is allowed (first listed build of each site) and makes the removals it owes. It uses only the
standard library and the legal orders dippouch sends, so it plays any variant. See docs/bots.md.
"""

import json
import sys


def choose(request):
    power = request["power"]
    position = request["position"]
    owned = set(position["supply_centers"].get(power, []))
    centres = set(request["centres"])
    orders = []
    builds = request["builds"]
    for options in request["legal"].values():
        if request["kind"] == "adjustments":
            if builds > 0:
                build = next((o for o in options if o.startswith("Build")), None)
                if build:
                    orders.append(build)
                    builds -= 1
            elif builds < 0:
                orders.append(options[0])
                builds += 1
            continue
        # Moves look like "A par - bur"; take one into a centre someone else owns (or nobody does).
        targets = [o for o in options if " - " in o and " S " not in o and " C " not in o]
        good = [o for o in targets if o.split(" - ")[-1].split("/")[0] in centres - owned]
        orders.append(good[0] if good else options[0])
    return orders


def main():
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("type") != "orders":
            break  # "end": the game is over
        print(json.dumps({"orders": choose(request)}), flush=True)


if __name__ == "__main__":
    main()
