#!/usr/bin/env bash
# Real recordings for the comparison's rates: pairs of sgpt-demo captures on the local
# Vulkan adapter (lavapipe where there is no GPU), compared with `sgpt diff`.
#
#   format/benches/compare_demo.sh            # 5 pairs of 600 frames
#   PAIRS=10 FRAMES=3600 BY=5% format/benches/compare_demo.sh
#   NO_BUILD=1 format/benches/compare_demo.sh   # use target/release as it is
#
# For each pair it records A and B of the unchanged scene, and S with SLOW (a pass
# sgpt-demo --slow-pass accepts, made heavier by BY), then prints what `sgpt diff A B` flags (false alarms) and the
# verdict of SLOW in `sgpt diff A S` (power). lavapipe renders on the CPU: anything else
# running on the machine between two recordings changes their timings, and the engine
# reports that as the change it is; the figures are only as quiet as the machine.
set -euo pipefail

PAIRS=${PAIRS:-5}
FRAMES=${FRAMES:-600}
SLOW=${SLOW:-bloom down}
# 75 % of the bloom levels' rows again adds about 10 % to "bloom down" on lavapipe.
BY=${BY:-75%}
# The encoder-level spans that hold SLOW (its graph passes): slower in fact, not flagged wrongly.
ENCLOSING=${ENCLOSING:-bloom/down }
# Level timing, as the compare bench records: SLOW is then one row whatever graph pass ran it.
LEVEL=${LEVEL:-timing}

root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${NO_BUILD:-}" ]; then
    cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p sgpt-cli -p sgpt-demo
fi
sgpt="$root/target/release/sgpt"
demo="$root/target/release/sgpt-demo"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

record() {
    "$demo" --frames "$FRAMES" --level "$LEVEL" --no-memory -o "$@" 2>/dev/null | sed 's/^/    /'
}

false_alarms=0
found=0
echo "sgpt-demo pairs: $PAIRS × $FRAMES frames at level $LEVEL; slowed: \"$SLOW\" by $BY"
for pair in $(seq 1 "$PAIRS"); do
    echo "pair $pair"
    record "$work/a.sgpt"
    record "$work/b.sgpt"
    record "$work/s.sgpt" --slow-pass "$SLOW" --slow-by "$BY"
    same=$("$sgpt" diff "$work/a.sgpt" "$work/b.sgpt" --json)
    flagged=$(jq '([.passes[] | select(.verdict == "slower" or .verdict == "faster")] | length)
                  + (if .frame.verdict == "slower" or .frame.verdict == "faster" then 1 else 0 end)' <<<"$same")
    counts=$(jq -c '.comparison.verdicts' <<<"$same")
    slowed=$("$sgpt" diff "$work/a.sgpt" "$work/s.sgpt" --json)
    verdict=$(jq -r --arg slow "$SLOW" '[.passes[] | select(.label == $slow)][0]
                  | "\(.verdict) \(.estimate_change // "null") \(.reason // "")"' <<<"$slowed")
    # Anything flagged but what S slows in fact (SLOW and the spans holding it, found slower).
    others=$(jq --arg slow "$SLOW" --arg enclosing "$ENCLOSING" '[.passes[]
                  | select(.verdict == "slower" or .verdict == "faster")
                  | select((.verdict == "slower" and (.label == $slow or (.label | startswith($enclosing)))) | not)]
                  | length' <<<"$slowed")
    echo "  A vs B (unchanged): $flagged flagged; verdicts $counts"
    echo "  A vs S (slowed):    $SLOW: $verdict; $others others flagged"
    [ "$flagged" -gt 0 ] && false_alarms=$((false_alarms + 1))
    [ "${verdict%% *}" = "slower" ] && found=$((found + 1))
done
echo "pairs with a false alarm: $false_alarms/$PAIRS; slowed pass found slower: $found/$PAIRS"
