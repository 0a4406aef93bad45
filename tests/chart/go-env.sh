# Sourced by the tests/chart scripts: checks Debian's Go packages and sets up a GOPATH in
# $work (in the build tree) that resolves sprig's /v3 import paths and our own packages offline.
# Needs: work (a writable directory). Sets: GOPATH and friends, charttest_src, DHA_SOURCE_DIR.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$work"
work=$(cd "$work" && pwd)
gocode=/usr/share/gocode/src

need() {
  echo "tests/chart: $1 is missing; install the Debian packages golang-go" \
       "golang-github-masterminds-sprig-dev golang-gopkg-yaml.v2-dev golang-gopkg-yaml.v3-dev" \
       "golang-github-xeipuuv-gojsonschema-dev (scripts/install-deps)" >&2
  exit 1
}
command -v go >/dev/null || need "the go command"
for pkg in github.com/Masterminds/sprig github.com/Masterminds/semver gopkg.in/yaml.v2 gopkg.in/yaml.v3 \
           github.com/xeipuuv/gojsonschema; do
  [[ -d $gocode/$pkg ]] || need "$gocode/$pkg"
done

# GOPATH mode cannot resolve the /v3 import paths of sprig and semver by itself: link them, and
# the test sources under an import path of their own.
src=$work/gopath/src
mkdir -p "$src/dha.local" "$src/github.com/Masterminds/sprig" "$src/github.com/Masterminds/semver"
ln -sfn "$here" "$src/dha.local/charttest"
ln -sfn "$gocode/github.com/Masterminds/sprig" "$src/github.com/Masterminds/sprig/v3"
ln -sfn "$gocode/github.com/Masterminds/semver" "$src/github.com/Masterminds/semver/v3"

export GO111MODULE=off GOPATH="$work/gopath:/usr/share/gocode" GOCACHE="$work/gocache"
export GOFLAGS= GOPROXY=off CGO_ENABLED=0
DHA_SOURCE_DIR=$(cd "$here/../.." && pwd)
export DHA_SOURCE_DIR
charttest_src=$src/dha.local/charttest
