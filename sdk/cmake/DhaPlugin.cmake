# dha_add_plugin(<target> SOURCES ...): builds a db-autoscaler plugin shared object.
# Shipped with the SDK, used for in-tree and third-party plugins alike: the file is named
# <target>.so (no "lib" prefix), hides every symbol but dha_plugin_entry_v1 with a linker
# version script, and refuses undefined symbols at link time rather than at load time.
set(_DHA_PLUGIN_MAP "${CMAKE_CURRENT_LIST_DIR}/dha-plugin.map")

function(dha_add_plugin target)
  # Resolved here, not from the variable above: that one is scoped to the directory that
  # included this file, and plugins are added from sibling directories.
  set(_DHA_PLUGIN_MAP "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/dha-plugin.map")
  cmake_parse_arguments(P "" "" "SOURCES;LIBS" ${ARGN})
  add_library(${target} MODULE ${P_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${_DHA_PLUGIN_MAP})
  target_link_libraries(${target} PRIVATE dha::sdk ${P_LIBS})
  target_link_options(${target} PRIVATE "-Wl,--version-script=${_DHA_PLUGIN_MAP}" "-Wl,--no-undefined")
endfunction()
