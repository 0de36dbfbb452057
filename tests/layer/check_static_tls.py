"""The layer's thread-local storage stays a few words (layer/src/base/thread_box.h says why): a
library loaded with dlopen that reads thread-locals with the initial-exec model takes its whole
TLS block from glibc's static TLS reserve, which later libraries need too (NVIDIA's
libnvidia-tls.so failed to load beside a 1.3 KB block)."""
import re
import subprocess
import sys

BUDGET = 256  # bytes

library = sys.argv[1]
headers = subprocess.run(["readelf", "-lW", library], capture_output=True, text=True,
                         check=True).stdout
sizes = [int(m.group(1), 16) for m in
         re.finditer(r"^\s*TLS\s+\S+\s+\S+\s+\S+\s+\S+\s+(0x[0-9a-f]+)", headers, re.M)]
if len(sizes) != 1:
    sys.exit(f"expected one PT_TLS segment in {library}, found {len(sizes)}")
print(f"{library}: TLS block {sizes[0]} bytes (budget {BUDGET})")
if sizes[0] > BUDGET:
    symbols = subprocess.run(["readelf", "-sW", library], capture_output=True, text=True).stdout
    big = sorted((int(f[2]), f[7]) for f in (l.split() for l in symbols.splitlines())
                 if len(f) >= 8 and f[3] == "TLS")[-8:]
    sys.exit(f"TLS block over budget; largest: {big}")
