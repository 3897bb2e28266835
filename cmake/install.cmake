# SPDX-License-Identifier: BSD-3-Clause
# Installs the header, the libraries, librpma.pc and the CMake package
# config, so that both pkg-config and find_package(librpma CONFIG) work.

include(${PROJECT_SOURCE_DIR}/cmake/package.cmake)

install(FILES ${PROJECT_SOURCE_DIR}/include/librpma.h
	DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# the static library's dependencies are pkg-config modules, not CMake targets
set_target_properties(rpma_static PROPERTIES INTERFACE_LINK_LIBRARIES "ibverbs;rdmacm")

install(TARGETS rpma rpma_static EXPORT librpmaTargets
	LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
	ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

install_package(librpma ${PROJECT_SOURCE_DIR}/cmake)
