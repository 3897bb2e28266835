# SPDX-License-Identifier: BSD-3-Clause
# Installs the header, the libraries, librpma.pc and the CMake package
# config, so that both pkg-config and find_package(librpma CONFIG) work.

include(CMakePackageConfigHelpers)

install(FILES ${PROJECT_SOURCE_DIR}/include/librpma.h
	DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# the static library's dependencies are pkg-config modules, not CMake targets
set_target_properties(rpma_static PROPERTIES INTERFACE_LINK_LIBRARIES "ibverbs;rdmacm")

install(TARGETS rpma rpma_static EXPORT librpmaTargets
	LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
	ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

install(EXPORT librpmaTargets
	NAMESPACE librpma::
	DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/librpma)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/librpmaConfig.cmake.in
	${PROJECT_BINARY_DIR}/librpmaConfig.cmake
	INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/librpma)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/librpmaConfigVersion.cmake
	COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/librpmaConfig.cmake
	${PROJECT_BINARY_DIR}/librpmaConfigVersion.cmake
	DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/librpma)

# relative to the .pc file, so the package also works when installed with --prefix
file(RELATIVE_PATH PC_PREFIX_FROM_PCFILEDIR
	/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/librpma.pc.in
	${PROJECT_BINARY_DIR}/librpma.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/librpma.pc
	DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
