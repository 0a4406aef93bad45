# Build settings every first-party target shares, the SDK's included: the SDK configures on its
# own (cmake -S sdk), so they live here and the whole project includes them from here.
# Every first-party target calls dha_target_defaults().

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
