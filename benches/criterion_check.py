#!/usr/bin/env python3
"""Fails when `cargo bench` found a benchmark slower than the run it compared with.

usage: benches/criterion_check.py [--threshold PERCENT] [--dir DIR]

criterion prints "Performance has regressed" and still exits 0; this reads what it saved for
each benchmark's last comparison (DIR, default $CARGO_TARGET_DIR/criterion or
target/criterion: <benchmark>/change/estimates.json), prints the change of each median, and
exits 1, naming them, when for some benchmark even the low end of the change's 95 % interval is
over PERCENT (default 10). Typical use, the baseline taken on main on the same machine:

    cargo bench --bench core -- --baseline main && python3 benches/criterion_check.py
"""
import argparse, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def changes(root):
    """(benchmark, median change, low end of its interval), as fractions, by name."""
    found = []
    for folder, _, files in os.walk(root):
        if os.path.basename(folder) == "change" and "estimates.json" in files:
            with open(os.path.join(folder, "estimates.json")) as f:
                median = json.load(f)["median"]
            name = os.path.relpath(os.path.dirname(folder), root)
            found.append((name, median["point_estimate"],
                          median["confidence_interval"]["lower_bound"]))
    return sorted(found)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threshold", type=float, default=10.0,
                    help="percent slower, at the low end of the interval, that fails")
    ap.add_argument("--dir", help="criterion's output folder")
    a = ap.parse_args()
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
    root = a.dir or os.path.join(target, "criterion")
    found = changes(root)
    if not found:
        sys.exit(f"no comparison in {root}: run `cargo bench` twice, or with --baseline NAME")
    regressed = []
    for name, change, low in found:
        print(f"{name:40} median {change * 100:+7.1f} %  (at least {low * 100:+.1f} %)")
        if low * 100 > a.threshold:
            regressed.append(name)
    if regressed:
        print(f"slower by more than {a.threshold:g} %: {', '.join(regressed)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
