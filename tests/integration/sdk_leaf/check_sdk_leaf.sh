#!/usr/bin/env bash
# check_sdk_leaf.sh SOURCE_DIR
# The SDK is a leaf: nothing under sdk/ includes a header of the host (core/), and sdk/ configures
# as a project of its own. (Building it alone takes minutes; configuring proves that every
# target and dependency it names is its own.)
set -euo pipefail
source_dir=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# Every include directory core/ offers: the component folders and the dha/<component>/ headers.
components='actuators|admission|decide|gates|kube|model|server|status_writer|telemetry'
host_paths="operator|pipeline|plugin_host|tenancy|dha/($components)"
if found=$(grep -rEn "#include [<\"]($host_paths)/" "$source_dir/sdk"); then
  echo "sdk/ includes host headers:"; echo "$found"; exit 1
fi
cmake -S "$source_dir/sdk" -B "$work/build" -G Ninja >"$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; echo "sdk/ does not configure on its own"; exit 1; }
echo "sdk/ includes nothing from core/ and configures alone"
