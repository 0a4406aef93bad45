# Shared build settings. Every first-party target calls dha_target_defaults().

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_C_STANDARD 11)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
# Hidden by default: a plugin exports only dha_plugin_entry_v1, the host nothing it did not mean to.
set(CMAKE_CXX_VISIBILITY_PRESET hidden)
set(CMAKE_C_VISIBILITY_PRESET hidden)
set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)

find_program(DHA_CCACHE ccache)
if(DHA_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER ${DHA_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${DHA_CCACHE})
endif()

if(DHA_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

function(dha_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(DHA_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Boost 1.74's asio/awaitable.hpp forgets <utility> under GCC 12 in C++20; every Asio/Beast
# user gets it force-included. Keep Beast in as few translation units as possible: it is
# the slowest header set in the build.
function(dha_use_asio target)
  target_compile_options(${target} PRIVATE -include utility)
  # GCC 12 at -O1 and above inlines Asio's recycling allocator into coroutine frames and then
  # reports a new/delete mismatch that is not one (operator new and delete are paired by
  # awaitable_frame_base); -O0 builds do not see it. Keep every other warning an error.
  target_compile_options(${target} PRIVATE -Wno-mismatched-new-delete)
  target_compile_definitions(${target} PRIVATE BOOST_ASIO_NO_DEPRECATED BOOST_BEAST_USE_STD_STRING_VIEW)
  target_link_libraries(${target} PRIVATE Boost::headers Boost::system Threads::Threads OpenSSL::SSL OpenSSL::Crypto)
endfunction()

# Adds every immediate subfolder that has a CMakeLists.txt, so a new component or test folder
# needs no edit of its parent.
function(dha_add_subfolders)
  file(GLOB children LIST_DIRECTORIES true RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/*)
  list(SORT children)
  foreach(child IN LISTS children)
    if(IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/${child} AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${child}/CMakeLists.txt)
      add_subdirectory(${child})
    endif()
  endforeach()
endfunction()

# A GoogleTest executable registered with ctest. LABELS lets CI pick unit/integration groups.
function(dha_add_gtest name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  dha_target_defaults(${name})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${T_LABELS}")
endfunction()
