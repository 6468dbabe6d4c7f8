"""Damages two entries of an object cache directory (argv[1]): the first, by
name, truncated to half its size; the second with one byte of its object
flipped. The compiler must recompile both, never trust them."""
import os
import sys

entries = sorted(f for f in os.listdir(sys.argv[1])
                 if f.startswith("llvmcache-") and f != "llvmcache.timestamp")
first, second = (os.path.join(sys.argv[1], f) for f in entries[:2])
with open(first, "r+b") as f:
    f.truncate(os.path.getsize(first) // 2)
with open(second, "r+b") as f:
    f.seek(-1, os.SEEK_END)
    last = f.read(1)
    f.seek(-1, os.SEEK_END)
    f.write(bytes([last[0] ^ 0xFF]))
