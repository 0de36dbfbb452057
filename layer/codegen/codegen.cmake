# Build-time code generation from the Vulkan registry: generate.py drives one gen_*.py module per
# output over the shared model (vkxml.py, classify.py, object_graph.py, emit.py); the rules are in
# their docstrings.
#
# include()d from layer/CMakeLists.txt. Needs Python3_EXECUTABLE and VKLEAK_VK_XML (set by the
# top-level CMakeLists.txt). Defines:
#   VKLEAK_GENERATED_DIR      directory of the generated files (add it to the include path)
#   VKLEAK_GENERATED_SOURCES  the generated .cpp files plus the stamp (add all to the layer
#                             target; the stamp is not compiled, it attaches the command)
#   VKLEAK_GENERATED_HEADERS  the generated headers
#   VKLEAK_GENERATED_LIST     the generated hooked_commands.txt (diffed against tests/golden/)
#
# Why a stamp: generate.py rewrites a file only when its content changes, so a regeneration that
# changes nothing recompiles nothing. The files are therefore BYPRODUCTS and the always-touched
# stamp is the OUTPUT; otherwise Makefile generators would rerun the script on every build (the
# outputs stay older than their inputs). Ninja restats the byproducts.
#
# List VKLEAK_GENERATED_SOURCES in one target only (the layer): with Makefile generators two
# targets that list them may run the command concurrently. Another target that includes the
# generated headers must add_dependencies() on the layer target.

set(VKLEAK_CODEGEN_DIR "${CMAKE_CURRENT_LIST_DIR}")
set(VKLEAK_GENERATED_DIR "${CMAKE_CURRENT_BINARY_DIR}/generated")

set(_vkleak_generated_cpp
  "${VKLEAK_GENERATED_DIR}/vk_dispatch.cpp"
  "${VKLEAK_GENERATED_DIR}/generated_hooks.cpp"
  "${VKLEAK_GENERATED_DIR}/graph_walkers.cpp"
  "${VKLEAK_GENERATED_DIR}/hook_table.cpp")
set(_vkleak_generated_stamp "${VKLEAK_GENERATED_DIR}/generate.stamp")
set(VKLEAK_GENERATED_SOURCES ${_vkleak_generated_cpp} "${_vkleak_generated_stamp}")
set(VKLEAK_GENERATED_HEADERS
  "${VKLEAK_GENERATED_DIR}/vk_object_types.h"
  "${VKLEAK_GENERATED_DIR}/vk_dispatch.h"
  "${VKLEAK_GENERATED_DIR}/manual_hooks.h"
  "${VKLEAK_GENERATED_DIR}/graph_walkers.h"
  "${VKLEAK_GENERATED_DIR}/hook_table.h"
  "${VKLEAK_GENERATED_DIR}/hook_calls.inc")
set(VKLEAK_GENERATED_LIST "${VKLEAK_GENERATED_DIR}/hooked_commands.txt")
# Every module of the generator, so that editing any reruns it (tests/codegen checks the list).
set(_vkleak_codegen_modules
  generate.py vkxml.py classify.py object_graph.py emit.py
  gen_object_types.py gen_dispatch.py gen_manual_hooks.py gen_hooks.py gen_graph_walkers.py
  gen_hook_table.py gen_hooked_commands.py gen_hook_calls.py)
list(TRANSFORM _vkleak_codegen_modules PREPEND "${VKLEAK_CODEGEN_DIR}/")

if(NOT EXISTS "${VKLEAK_VK_XML}")
  message(FATAL_ERROR "vkleak: no Vulkan registry at VKLEAK_VK_XML='${VKLEAK_VK_XML}'")
endif()

add_custom_command(
  OUTPUT "${_vkleak_generated_stamp}"
  BYPRODUCTS ${_vkleak_generated_cpp} ${VKLEAK_GENERATED_HEADERS} "${VKLEAK_GENERATED_LIST}"
  COMMAND "${Python3_EXECUTABLE}" "${VKLEAK_CODEGEN_DIR}/generate.py"
          --registry "${VKLEAK_VK_XML}"
          --exceptions "${VKLEAK_CODEGEN_DIR}/exceptions.json"
          --out-dir "${VKLEAK_GENERATED_DIR}"
  COMMAND "${CMAKE_COMMAND}" -E touch "${_vkleak_generated_stamp}"
  DEPENDS "${VKLEAK_VK_XML}"
          ${_vkleak_codegen_modules}
          "${VKLEAK_CODEGEN_DIR}/exceptions.json"
  COMMENT "Generating Vulkan dispatch tables and hooks from ${VKLEAK_VK_XML}"
  VERBATIM)
