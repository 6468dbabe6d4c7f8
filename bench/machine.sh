# The head line of a results table (sourced by the bench scripts).
# "# DATE ARCH, N cores: CPU" followed by the arguments.
machine_line() {
  echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')$*"
}
