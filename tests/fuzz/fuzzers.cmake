# Every libFuzzer target of the project, built with clang (-fsanitize=fuzzer,address,undefined).
# The parsers' own sources are compiled here directly (instrumented for coverage and the
# sanitizers) rather than linked from the GCC build; Debian's yaml-cpp, fmt and libcurl are
# linked as they are (not instrumented, which is fine: they are not what we fuzz).
#
# Adding a target: a folder <name>/ with <name>_fuzzer.cpp and a corpus/ of real documents,
# and one dha_fuzzer(<name> ...) line below. run.sh and the ctest registration find it by the
# folder.

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "the fuzzers need clang with libFuzzer: configure with -DCMAKE_CXX_COMPILER=clang++-14 "
                      "(Debian packages clang-14 and libclang-rt-14-dev)")
endif()

find_package(yaml-cpp REQUIRED)
find_package(fmt REQUIRED)

set(ROOT ${CMAKE_CURRENT_SOURCE_DIR}/../..)
set(DHA_FUZZ_SANITIZERS address,undefined)
# RapidJSON 1.1.0 iterators trip clang's C++20 reversed-operator warning; not ours to fix.
# RapidJSON 1.1.0's full-precision number parser calls clz(0) in internal/diyfp.h (fixed
# upstream after 1.1.0; the result is unused for zero). A suppression file does not reach
# clang 14's builtin check, so only that check is off; the rest of UBSan stays fatal.
# (-fno-sanitize=builtin must follow -fsanitize=undefined on the command line: see DHA_FUZZ_AFTER.)
set(DHA_FUZZ_COMMON_OPTIONS -g -O1 -fno-omit-frame-pointer -DRAPIDJSON_HAS_STDSTRING=1
    -Wno-ambiguous-reversed-operator)
set(DHA_FUZZ_AFTER -fno-sanitize=builtin)

# The code under test: instrumented for coverage (fuzzer-no-link) and the sanitizers. Warnings
# are shown but not fatal here: these sources are held to -Werror by the GCC build.
function(dha_fuzz_library name)
  cmake_parse_arguments(L "" "" "SOURCES;INCLUDES;LIBS" ${ARGN})
  add_library(${name} STATIC ${L_SOURCES})
  target_include_directories(${name} PUBLIC ${L_INCLUDES} ${ROOT}/sdk/include)
  target_compile_options(${name} PRIVATE ${DHA_FUZZ_COMMON_OPTIONS} -Wall -Wextra
                                         -fsanitize=fuzzer-no-link,${DHA_FUZZ_SANITIZERS} ${DHA_FUZZ_AFTER})
  target_compile_definitions(${name} PUBLIC RAPIDJSON_HAS_STDSTRING=1)
  target_link_libraries(${name} PUBLIC ${L_LIBS})
endfunction()

# One fuzzer: <name>/<name>_fuzzer.cpp (or MAIN) linked with the libraries it exercises.
function(dha_fuzzer name)
  cmake_parse_arguments(F "" "MAIN" "SOURCES;LIBS;INCLUDES" ${ARGN})
  if(NOT F_MAIN)
    set(F_MAIN ${name}/${name}_fuzzer.cpp)
  endif()
  set(target ${name}_fuzzer)
  add_executable(${target} ${F_MAIN} ${F_SOURCES})
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/common ${F_INCLUDES} ${ROOT}/sdk/include)
  target_compile_options(${target} PRIVATE ${DHA_FUZZ_COMMON_OPTIONS} -Wall -Wextra -Werror
                                           -fsanitize=fuzzer,${DHA_FUZZ_SANITIZERS} ${DHA_FUZZ_AFTER})
  target_link_options(${target} PRIVATE -fsanitize=fuzzer,${DHA_FUZZ_SANITIZERS} ${DHA_FUZZ_AFTER})
  target_link_libraries(${target} PRIVATE ${F_LIBS})
endfunction()

dha_fuzz_library(fuzz_model
  SOURCES ${ROOT}/core/model/src/input_error.cpp ${ROOT}/core/model/src/json_read.cpp
          ${ROOT}/core/model/src/quantity.cpp ${ROOT}/core/model/src/rfc3339.cpp
          ${ROOT}/core/model/src/spec.cpp ${ROOT}/core/model/src/observation.cpp
          ${ROOT}/core/model/src/decision_state.cpp ${ROOT}/core/model/src/recommendation_history.cpp
          ${ROOT}/core/model/src/status.cpp ${ROOT}/core/model/src/yaml_to_json.cpp
  INCLUDES ${ROOT}/core/model/include
  LIBS yaml-cpp)

file(GLOB DHA_FUZZ_GATE_SOURCES ${ROOT}/core/gates/src/*.cpp)
dha_fuzz_library(fuzz_decide
  SOURCES ${DHA_FUZZ_GATE_SOURCES} ${ROOT}/core/decide/src/formula.cpp
          ${ROOT}/core/decide/src/backoff.cpp ${ROOT}/core/decide/src/decide.cpp
  INCLUDES ${ROOT}/core/gates/include ${ROOT}/core/decide/include
  LIBS fuzz_model fmt::fmt)

dha_fuzz_library(fuzz_kube
  SOURCES ${ROOT}/core/kube/src/config.cpp ${ROOT}/core/kube/src/watch_decoder.cpp
          ${ROOT}/core/kube/src/json.cpp ${ROOT}/core/kube/src/label_selector.cpp
  INCLUDES ${ROOT}/core/kube/include
  LIBS yaml-cpp fmt::fmt)

dha_fuzz_library(fuzz_tenancy
  SOURCES ${ROOT}/core/tenancy/promql_lexer.cpp ${ROOT}/core/tenancy/label_escape.cpp
          ${ROOT}/core/tenancy/namespace_scope.cpp ${ROOT}/core/tenancy/query_template.cpp
          ${ROOT}/core/tenancy/query_functions.cpp
  INCLUDES ${ROOT}/core)

dha_fuzz_library(fuzz_plugin_host
  SOURCES ${ROOT}/core/plugin_host/config_validator.cpp
  INCLUDES ${ROOT}/core
  LIBS fmt::fmt)

dha_fuzz_library(fuzz_metrics_vm
  SOURCES ${ROOT}/plugins/metrics-vm/prometheus_response.cpp
  INCLUDES ${ROOT}/plugins/metrics-vm)

set(ADMISSION ${ROOT}/core/builtin/admission)
dha_fuzz_library(fuzz_admission
  SOURCES ${ADMISSION}/src/go_float_format.cpp ${ADMISSION}/src/ownership_policy.cpp
          ${ADMISSION}/src/admission_review.cpp
  INCLUDES ${ADMISSION}/include)

dha_fuzzer(admission MAIN admission/admission_review_fuzzer.cpp LIBS fuzz_admission)
dha_fuzzer(prometheus_response LIBS fuzz_metrics_vm)
dha_fuzzer(watch_stream LIBS fuzz_kube)
dha_fuzzer(kubeconfig LIBS fuzz_kube)
dha_fuzzer(dha_spec LIBS fuzz_model)
dha_fuzzer(dha_status LIBS fuzz_model)
dha_fuzzer(quantity LIBS fuzz_model)
dha_fuzzer(decide SOURCES ${ROOT}/core/cli/decide_command.cpp INCLUDES ${ROOT}/core/cli LIBS fuzz_decide)
dha_fuzzer(plugin_json)
dha_fuzzer(plugin_config LIBS fuzz_plugin_host)
dha_fuzzer(query_template LIBS fuzz_tenancy)
