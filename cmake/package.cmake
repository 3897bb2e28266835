# SPDX-License-Identifier: BSD-3-Clause
# install_package(NAME TEMPLATES): installs NAME's CMake package (the export
# set NAMETargets, NAMEConfig.cmake made from TEMPLATES/NAMEConfig.cmake.in
# and a version file) and NAME.pc made from TEMPLATES/NAME.pc.in, so that
# both find_package(NAME CONFIG) and pkg-config find what is installed.

include(CMakePackageConfigHelpers)

function(install_package name templates)
	set(dir ${CMAKE_INSTALL_LIBDIR}/cmake/${name})
	install(EXPORT ${name}Targets NAMESPACE ${name}:: DESTINATION ${dir})
	configure_package_config_file(${templates}/${name}Config.cmake.in
		${PROJECT_BINARY_DIR}/${name}Config.cmake INSTALL_DESTINATION ${dir})
	write_basic_package_version_file(${PROJECT_BINARY_DIR}/${name}ConfigVersion.cmake
		VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
	install(FILES ${PROJECT_BINARY_DIR}/${name}Config.cmake
		${PROJECT_BINARY_DIR}/${name}ConfigVersion.cmake DESTINATION ${dir})

	# relative to the .pc file, so the package also works when installed with --prefix
	file(RELATIVE_PATH PC_PREFIX_FROM_PCFILEDIR
		/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
	configure_file(${templates}/${name}.pc.in ${PROJECT_BINARY_DIR}/${name}.pc @ONLY)
	install(FILES ${PROJECT_BINARY_DIR}/${name}.pc
		DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
