# What `cmake --install` and `cpack -G DEB` give a user: the layer, its manifests, the CLI and
# the headers (installed by layer/, manifest/ and src/), plus
#   <libdir>/cmake/vkleak/   vkleakConfig.cmake: find_package(vkleak) gives the header target
#                            vkleak::vkleak and the layer's paths (VKLEAK_* below)
#   <libdir>/pkgconfig/      vkleak.pc: the same for pkg-config
# Every path in them is relative to the file's own place, as the manifests' library_path is, so
# the prefix can be moved (DESTDIR, a .deb, a copied directory). Included by the top-level
# CMakeLists.txt.
include(CMakePackageConfigHelpers)

# The C API (vkleak.h, vkleak_gtest.h): header-only, it needs the Vulkan headers and loader.
add_library(vkleak_api INTERFACE)
add_library(vkleak::vkleak ALIAS vkleak_api)
set_target_properties(vkleak_api PROPERTIES EXPORT_NAME vkleak)
target_include_directories(vkleak_api INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/layer/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(vkleak_api INTERFACE Vulkan::Vulkan)
install(TARGETS vkleak_api EXPORT vkleakTargets)

# The layer's installed paths, relative to the prefix (manifest/CMakeLists.txt installs the
# manifests there, pointing at the library through ../../../<libdir>).
set(VKLEAK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/vkleak)
set(VKLEAK_INSTALL_LAYER_LIBRARY ${CMAKE_INSTALL_LIBDIR}/libVkLayer_vkleak.so)
set(VKLEAK_INSTALL_MANIFEST_DIR ${CMAKE_INSTALL_DATADIR}/vulkan/explicit_layer.d)
set(VKLEAK_INSTALL_IMPLICIT_MANIFEST_DIR ${CMAKE_INSTALL_DATADIR}/vulkan/implicit_layer.d)
set(VKLEAK_INSTALL_EXECUTABLE ${CMAKE_INSTALL_BINDIR}/vkleak)

install(EXPORT vkleakTargets NAMESPACE vkleak:: DESTINATION ${VKLEAK_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/vkleakConfig.cmake.in
  ${CMAKE_BINARY_DIR}/packaging/vkleakConfig.cmake
  INSTALL_DESTINATION ${VKLEAK_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR VKLEAK_INSTALL_LAYER_LIBRARY VKLEAK_INSTALL_MANIFEST_DIR
            VKLEAK_INSTALL_IMPLICIT_MANIFEST_DIR VKLEAK_INSTALL_EXECUTABLE)
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/packaging/vkleakConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/packaging/vkleakConfig.cmake
              ${CMAKE_BINARY_DIR}/packaging/vkleakConfigVersion.cmake
        DESTINATION ${VKLEAK_INSTALL_CMAKEDIR})

# vkleak.pc finds its prefix from its own directory (${pcfiledir}).
file(RELATIVE_PATH VKLEAK_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" VKLEAK_PC_TO_PREFIX "${VKLEAK_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/vkleak.pc.in ${CMAKE_BINARY_DIR}/packaging/vkleak.pc
               @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/packaging/vkleak.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# cpack -G DEB: one package, installed under /usr, where the loader finds the implicit manifest
# (/usr/share/vulkan/implicit_layer.d; on only with VKLEAK_ENABLE=1) and the explicit one is at
# /usr/share/vulkan/explicit_layer.d.
set(VKLEAK_PACKAGE_MAINTAINER "Seed 597f883e maintainers <maintainers@users.noreply.a-seed-597f883e.example>"
    CACHE STRING "Maintainer field of the packages cpack makes")
set(CPACK_PACKAGE_NAME vkleak)
set(CPACK_PACKAGE_VENDOR vkleak)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${VKLEAK_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Finds GPU object leaks in Vulkan programs: a Vulkan layer and the vkleak CLI")
set(CPACK_PACKAGE_DESCRIPTION
    "The VK_LAYER_VKLEAK_tracker layer records Vulkan objects and writes snapshots; vkleak run, report and gate find leaks in them. With the C API headers, a CMake package and vkleak.pc.")
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The loader by hand: the layer is loaded by it and links nothing of it, and programs using the
# headers link it. The libraries the CLI and the layer link come from dpkg-shlibdeps (dpkg-dev);
# without it, the list it gives on Debian 12.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libvulkan1")
find_program(VKLEAK_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(VKLEAK_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libc6 (>= 2.34), libdw1 (>= 0.159), "
         "libelf1 (>= 0.131), libgcc-s1 (>= 3.3.1), libstdc++6 (>= 11), libunwind8")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libvulkan-dev, mesa-vulkan-drivers")
include(CPack)
