# Compares the ABI headers with sdk/abi.lock. Run as:
#   cmake -DSDK_DIR=<repo>/sdk [-DUPDATE=ON] -P check_abi_lock.cmake
# The lock holds the ABI version and one sha256 per header. An ABI change is deliberate: bump
# DHA_ABI_VERSION_* in abi.h, add a "## <major>.<minor>" section to sdk/CHANGELOG.md, then run
# scripts/update-abi-lock, which refuses to re-lock changed headers under an unchanged version.
file(GLOB headers RELATIVE ${SDK_DIR} ${SDK_DIR}/include/dha/abi.h ${SDK_DIR}/include/dha/ext/*.h)
list(SORT headers)
file(STRINGS ${SDK_DIR}/include/dha/abi.h major_line REGEX "#define DHA_ABI_VERSION_MAJOR")
file(STRINGS ${SDK_DIR}/include/dha/abi.h minor_line REGEX "#define DHA_ABI_VERSION_MINOR")
string(REGEX MATCH "[0-9]+" major "${major_line}")
string(REGEX MATCH "[0-9]+" minor "${minor_line}")
set(expected "abi-version ${major}.${minor}\n")
foreach(header IN LISTS headers)
  file(SHA256 ${SDK_DIR}/${header} sum)
  string(APPEND expected "${sum}  ${header}\n")
endforeach()

set(lock ${SDK_DIR}/abi.lock)
set(current "")
if(EXISTS ${lock})
  file(READ ${lock} current)
endif()

if(UPDATE)
  string(REGEX MATCH "abi-version [0-9]+\\.[0-9]+" locked_version "${current}")
  if(NOT current STREQUAL expected AND locked_version STREQUAL "abi-version ${major}.${minor}")
    message(FATAL_ERROR "ABI headers changed but the version is still ${major}.${minor}: bump DHA_ABI_VERSION_* first")
  endif()
  file(READ ${SDK_DIR}/CHANGELOG.md changelog)
  if(NOT changelog MATCHES "## ${major}\\.${minor}")
    message(FATAL_ERROR "sdk/CHANGELOG.md has no \"## ${major}.${minor}\" section")
  endif()
  file(WRITE ${lock} "${expected}")
  message(STATUS "sdk/abi.lock updated for ABI ${major}.${minor}")
  return()
endif()

if(NOT current STREQUAL expected)
  message(FATAL_ERROR "The plugin ABI headers differ from sdk/abi.lock.\n"
          "Locked:\n${current}\nNow:\n${expected}\n"
          "An ABI change breaks plugins already built. If it is deliberate: bump DHA_ABI_VERSION_* in "
          "sdk/include/dha/abi.h, describe it in sdk/CHANGELOG.md, run scripts/update-abi-lock.")
endif()
file(READ ${SDK_DIR}/CHANGELOG.md changelog)
if(NOT changelog MATCHES "## ${major}\\.${minor}")
  message(FATAL_ERROR "sdk/CHANGELOG.md has no \"## ${major}.${minor}\" section for the current ABI")
endif()
message(STATUS "ABI ${major}.${minor} headers match sdk/abi.lock")
