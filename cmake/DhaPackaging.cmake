# Debian packages, built with `cpack -G DEB` (or `cmake --build --preset ci --target package`):
#   db-autoscaler       the operator and every bundled plugin (install component "operator")
#   db-autoscaler-sdk   what a plugin author needs: headers, the CMake package and pkg-config
#                       file, the test kit, dha-plugin-check and dha-apiserver ("sdk")
# Both install under /usr and are meant for `apt install ./db-autoscaler*.deb` on Debian 12.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME db-autoscaler)
set(CPACK_PACKAGE_VENDOR "Cozystack")
set(CPACK_PACKAGE_CONTACT "Cozystack maintainers <maintainers@cozystack.io>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# No package-wide CPACK_PACKAGE_DESCRIPTION_SUMMARY: the DEB generator puts it in front of every
# component's description, so the SDK package would open with the operator's summary. Each
# description below starts with its own summary line instead.
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL operator debian sdk sdk_debian)
# One package per group: db-autoscaler is the operator's files and what Debian adds to them
# (packaging/: copyright, changelog, manual page, the chart's manifests); db-autoscaler-sdk the
# SDK's and its own copyright, changelog and manual pages.
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENT_OPERATOR_GROUP operator)
set(CPACK_COMPONENT_DEBIAN_GROUP operator)
set(CPACK_COMPONENT_SDK_GROUP sdk)
set(CPACK_COMPONENT_SDK_DEBIAN_GROUP sdk)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/cozystack/db-autoscaler")
# Library dependencies are read from the binaries by dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)

set(CPACK_DEBIAN_OPERATOR_PACKAGE_NAME db-autoscaler)
set(CPACK_DEBIAN_OPERATOR_PACKAGE_RECOMMENDS "ca-certificates")
string(CONCAT CPACK_COMPONENT_OPERATOR_DESCRIPTION
  "Read-replica autoscaler for managed databases (Kubernetes operator)\n"
  "The db-autoscaler operator and kubectl plugin, its bundled engine and metric\n"
  "source plugins (postgres, redis, mariadb, mongodb, metrics-vm), the CRD and\n"
  "the chart's RBAC and webhook manifests (/usr/share/db-autoscaler).")

set(CPACK_DEBIAN_SDK_PACKAGE_NAME db-autoscaler-sdk)
set(CPACK_DEBIAN_SDK_PACKAGE_SECTION devel)
# The template and the tutorial check a plugin with the operator itself.
set(CPACK_DEBIAN_SDK_PACKAGE_RECOMMENDS "db-autoscaler (= ${PROJECT_VERSION})")
# What find_package(dha-sdk) and the test kit's headers pull in, so the template builds after
# installing this package and a compiler.
string(CONCAT CPACK_DEBIAN_SDK_PACKAGE_DEPENDS
  "cmake (>= 3.25), g++ (>= 4:12), pkg-config, rapidjson-dev, libboost-dev (>= 1.74), libboost-system-dev, "
  "libssl-dev, libcurl4-openssl-dev, libyaml-cpp-dev, libgtest-dev, libgmock-dev")
# Debian's extended description: lines of at most 80 characters.
string(CONCAT CPACK_COMPONENT_SDK_DESCRIPTION
  "SDK for db-autoscaler plugins\n"
  "The plugin ABI headers and C++ wrapper, the CMake package\n"
  "(find_package(dha-sdk)) and pkg-config file, the test kit (FakeHost,\n"
  "PluginUnderTest, Pipeline, an embedded API server and a VictoriaMetrics\n"
  "fixture), dha-plugin-check, dha-apiserver, dha-world-sim, dha-dev-env and a\n"
  "template.")
# The DEB generator's own per-package variables, so neither package falls back to the other's text.
set(CPACK_DEBIAN_OPERATOR_DESCRIPTION "${CPACK_COMPONENT_OPERATOR_DESCRIPTION}")
set(CPACK_DEBIAN_SDK_DESCRIPTION "${CPACK_COMPONENT_SDK_DESCRIPTION}")

include(CPack)
