# shellcheck shell=bash
# Free TCP ports on 127.0.0.1 for the scripts that start servers (tests and benchmarks).
#
#   source tests/support/ports.sh
#   free_port       prints one port nothing holds now
#   free_ports N    prints a base port B with B .. B+N-1 all free now
#
# Ports come from below the kernel's ephemeral range (net.ipv4.ip_local_port_range; above it when
# the range starts too low), so the local end of an outgoing connection (curl, API clients) cannot
# take one between the pick and the server's bind. Each port is checked by binding it, not by
# connecting to it: a port held by a client socket or in TIME_WAIT refuses connections yet cannot
# be bound. Left open: two scripts picking the same port at the same moment (1 in ~12,000).
free_ports() {
  python3 - "$1" <<'PY'
import random, socket, sys
count = int(sys.argv[1])
with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
    eph_lo, eph_hi = (int(x) for x in f.read().split())
lo, hi = 20000, eph_lo - count
if hi - lo < 1000:
    lo, hi = eph_hi + 1, 65535 - count
for _ in range(1000):
    base = random.randint(lo, hi)
    socks = []
    try:
        for port in range(base, base + count):
            s = socket.socket()
            socks.append(s)
            s.bind(("127.0.0.1", port))
        print(base)
        sys.exit(0)
    except OSError:
        pass
    finally:
        for s in socks:
            s.close()
sys.exit("free_ports: no %d free consecutive ports on 127.0.0.1" % count)
PY
}
free_port() { free_ports 1; }
