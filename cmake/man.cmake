# SPDX-License-Identifier: BSD-3-Clause
#
# man_pages(TARGET SOURCE_DIR HEADER FOOTER): the man pages of one library.
# SOURCE_DIR/NAME.SECTION.md (pandoc markdown) becomes
# man/manSECTION/NAME.SECTION in the calling folder's build tree, HEADER and
# FOOTER at the top and the bottom of each, built by the target TARGET; and
# every other function a page names in its NAME section gets a ".so" page
# pointing at it, so that "man rpma_cq_get_fd" finds the page of the
# rpma_cq_wait family. The folder is installed under share/man.
# doc/CMakeLists.txt (librpma) and log/doc/CMakeLists.txt (librpmalog) call it.

include_guard(GLOBAL)

find_program(PANDOC pandoc)
if(NOT PANDOC)
	message(FATAL_ERROR "pandoc not found (BUILD_DOC=ON generates the man pages "
		"with it): install the Debian package 'pandoc' (utils/install-deps)")
endif()

function(man_pages target source_dir header footer)
	set(man_dir ${CMAKE_CURRENT_BINARY_DIR}/man)

	# the pages' date: the last change to them (the build's day outside git)
	execute_process(COMMAND git log -1 --format=%cs -- ${source_dir}
		WORKING_DIRECTORY ${source_dir}
		OUTPUT_VARIABLE date OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
	if(NOT date)
		string(TIMESTAMP date "%Y-%m-%d" UTC)
	endif()
	file(GLOB sources CONFIGURE_DEPENDS ${source_dir}/*.md)

	set(outputs)
	foreach(src ${sources})
		get_filename_component(file ${src} NAME)		# rpma_cq_wait.3.md
		string(REGEX REPLACE "\\.md$" "" page ${file})		# rpma_cq_wait.3
		string(REGEX MATCH "[0-9]$" section ${page})
		set(out ${man_dir}/man${section}/${page})

		add_custom_command(OUTPUT ${out}
			COMMAND ${CMAKE_COMMAND} -E make_directory ${man_dir}/man${section}
			COMMAND ${PANDOC} --standalone --from markdown --to man
				--metadata "header=${header}"
				--metadata "footer=${footer}"
				--metadata "date=${date}"
				# identifiers must not break at a hyphen: no hyphenation, and
				# lines left-aligned, as a long identifier may not fit a justified one
				--metadata hyphenate=false --metadata adjusting=l
				--output ${out} ${src}
			DEPENDS ${src}
			COMMENT "Generating man page ${page}"
			VERBATIM)
		list(APPEND outputs ${out})

		# the NAME line ("a, b, c - what they do") lists the names the page serves
		set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${src})
		file(READ ${src} text)
		if(NOT text MATCHES "\n# NAME\n+([^\n]+)")
			message(FATAL_ERROR "${src}: no NAME section")
		endif()
		string(REGEX REPLACE " +\\\\?- .*$" "" names "${CMAKE_MATCH_1}")
		string(REPLACE "\\_" "_" names "${names}")
		string(REGEX REPLACE ", *" ";" names "${names}")
		string(REGEX REPLACE "\\.[0-9]$" "" main_name ${page})
		foreach(name ${names})
			if(NOT name STREQUAL main_name)
				file(WRITE ${man_dir}/man${section}/${name}.${section}
					".so man${section}/${page}\n")
			endif()
		endforeach()
	endforeach()

	add_custom_target(${target} ALL DEPENDS ${outputs})

	install(DIRECTORY ${man_dir}/ DESTINATION ${CMAKE_INSTALL_MANDIR})
endfunction()
