# Sourced by docker/build.sh and tests/docker/smoke_test.sh: points podman and buildah at a
# containers.conf that works on the build machines (runc instead of crun, which fails on their
# hybrid cgroups; explicit ulimits, since the defaults give EPERM). An existing CONTAINERS_CONF
# is kept. Needs CACHE (the images cache directory).
mkdir -p "$CACHE"
if [[ -z ${CONTAINERS_CONF:-} || $CONTAINERS_CONF == "$CACHE/containers.conf" ]]; then
  cat >"$CACHE/containers.conf.$$" <<'CONF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
CONF
  mv -f "$CACHE/containers.conf.$$" "$CACHE/containers.conf"
  export CONTAINERS_CONF=$CACHE/containers.conf
fi
