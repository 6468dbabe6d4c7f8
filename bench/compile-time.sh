#!/usr/bin/env bash
# Compile time of CPU engines: a text recognizer of about 100 kernels (a
# ResNet-style convolutional backbone and seven transformer layers over 32
# columns, exported with Debian's python3-torch) and the shared resnet18.
# Each is compiled, in alternating rounds, by:
#   baseline  the tools of BASELINE_BIN (main before parallel codegen), if set,
#             an empty cache each round
#   1 thread  these tools, --codegen-threads=1, an empty object cache
#   cold      these tools, all cores, an empty object cache
#   warm      these tools, all cores, the object cache of an earlier compile
# and the wall-clock seconds are printed as best / median of ROUNDS, with the
# speed-up over the baseline. Every compile uses --no-kb, so a knowledge base
# of the user's does not change the work.
#
# Usage: bench/compile-time.sh
# Env: ROUNDS (3), BASELINE_BIN (e.g. /work/main/build/bin), INT21_BIN (the
#      tools to time, default build/bin; skips the build), INT21_BUILD_DIR.
# The exported model is kept in $build/bench-models (never committed); the
# caches live in a temporary directory, never in the user's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${ROUNDS:-3}"
baseline="${BASELINE_BIN:-}"

source "$root/bench/tools.sh"

# The recognizer, exported once. torch is a peer for measurement only: it is
# installed here on demand, not by scripts/setup.sh.
model_dir="$build/bench-models"
ocr="$model_dir/text-recognizer.onnx"
if [ ! -f "$ocr" ]; then
  if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
    echo "compile-time: installing python3-torch to export the model" >&2
    apt-get install -y -q python3-torch python3-torchvision >/dev/null
  fi
  mkdir -p "$model_dir"
  /usr/bin/python3 - "$ocr" <<'PY' 2>/dev/null
import sys
import torch
import torch.nn as nn

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != (1, 1) or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.b2(self.c2(torch.relu(self.b1(self.c1(x)))))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class Layer(nn.Module):
    def __init__(self, d=256, heads=8, ffn=1024):
        super().__init__()
        self.h = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, x):
        n, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).reshape(n, t, 3, self.h, d // self.h) \
                      .permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-1, -2) * (d // self.h) ** -0.5, -1) @ v
        x = x + self.proj(a.transpose(1, 2).reshape(n, t, d))
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))


class Recognizer(nn.Module):
    def __init__(self, classes=97, layers=7):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 32, 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(32), nn.ReLU())
        cfg = [(32, 64, (2, 2)), (64, 64, (1, 1)), (64, 128, (2, 2)),
               (128, 128, (1, 1)), (128, 256, (2, 1)), (256, 256, (1, 1)),
               (256, 256, (2, 1)), (256, 256, (1, 1))]
        self.blocks = nn.Sequential(*[Block(a, b, s) for a, b, s in cfg])
        self.pos = nn.Parameter(torch.randn(1, 32, 256) * 0.02)
        self.layers = nn.Sequential(*[Layer() for _ in range(layers)])
        self.ln, self.fc = nn.LayerNorm(256), nn.Linear(256, classes)

    def forward(self, x):  # x: N x 1 x 32 x 128, a line of text
        f = self.blocks(self.stem(x)).mean(2).permute(0, 2, 1) + self.pos
        return torch.log_softmax(self.fc(self.ln(self.layers(f))), -1)


torch.onnx.export(Recognizer().eval(), torch.randn(1, 1, 32, 128), sys.argv[1],
                  input_names=["image"], output_names=["logits"],
                  opset_version=17)
PY
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# seconds TOOLS MODEL [ENV=VALUE...] -- [FLAGS...]: one compile's wall time.
seconds() {
  local tools="$1" model="$2"
  shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local start end
  start=$(date +%s.%N)
  env "${envs[@]}" "$tools/int21-compile" "$model" --target=cpu --no-kb \
    -o "$work/engine.int21" "$@" 2>"$work/log" ||
    { cat "$work/log" >&2; exit 1; }
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}

# summary LABEL TIMES...: "best / median".
summary() {
  printf '%s\n' "$@" | sort -n | awk '{t[NR]=$1} END {
    m = (NR % 2) ? t[(NR+1)/2] : (t[NR/2] + t[NR/2+1]) / 2
    printf "%.2f / %.2f", t[1], m }'
}

machine_line ", $rounds rounds, codegen threads: $(nproc)"
printf '%-18s %8s %17s %17s %17s %17s\n' model kernels baseline "1 thread" cold warm
for model in "$ocr" "$models/resnet18.onnx"; do
  name="$(basename "$model" .onnx)"
  kernels=$("$bin/int21-compile" "$model" --emit=linalg | grep -c "= int21.fusion_group")
  # The warm cache: filled by one compile before the rounds.
  seconds "$bin" "$model" INT21_OBJECT_CACHE="$work/warm" -- >/dev/null
  base=() one=() cold=() warm=()
  for ((r = 0; r < rounds; r++)); do
    if [ -n "$baseline" ]; then
      # An empty cache each round: tools that have an object cache would
      # otherwise be timed warm after the first.
      rm -rf "$work/xdg"
      base+=("$(seconds "$baseline" "$model" XDG_CACHE_HOME="$work/xdg" --)")
    fi
    rm -rf "$work/cold"
    one+=("$(seconds "$bin" "$model" INT21_OBJECT_CACHE="$work/cold" -- --codegen-threads=1)")
    rm -rf "$work/cold"
    cold+=("$(seconds "$bin" "$model" INT21_OBJECT_CACHE="$work/cold" --)")
    warm+=("$(seconds "$bin" "$model" INT21_OBJECT_CACHE="$work/warm" --)")
  done
  printf '%-18s %8s %17s %17s %17s %17s\n' "$name" "$kernels" \
    "$([ -n "$baseline" ] && summary "${base[@]}" || echo -)" \
    "$(summary "${one[@]}")" "$(summary "${cold[@]}")" "$(summary "${warm[@]}")"
  if [ -n "$baseline" ]; then
    best() { printf '%s\n' "$@" | sort -n | head -1; }
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
    b=$(best "${base[@]}")
    printf '%-18s %8s %17s %17s %17s %17s\n' "  speed-up (best)" "" "1.00x" \
      "$(ratio "$b" "$(best "${one[@]}")")" \
      "$(ratio "$b" "$(best "${cold[@]}")")" \
      "$(ratio "$b" "$(best "${warm[@]}")")"
  fi
done
