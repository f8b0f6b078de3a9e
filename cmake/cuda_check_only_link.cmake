# The link step of a CUDA executable under LAYOUT_CUDA_CHECK_ONLY (cuda_check_only.cmake), run as
# its RULE_LAUNCH_LINK: `cmake -P cuda_check_only_link.cmake -- <the link command...>`. Its objects
# hold the device code as LTO IR, which only a device link (code generation for every kernel, the
# cost the mode avoids) would turn into a program, so nothing is linked: the output (the argument
# after -o) becomes a script that says so and exits 77, which CTest reports as skipped. Its
# message has the words the GPU programs print where there is no GPU ("no CUDA device"), which
# the scripts and tests that run them look for (tests/md).
set(output)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 4 ${last}) # after `cmake -P <script> --`
    if(CMAKE_ARGV${i} STREQUAL "-o" AND i LESS last)
        math(EXPR next "${i} + 1")
        set(output "${CMAKE_ARGV${next}}")
    endif()
endforeach()
if(NOT output)
    message(FATAL_ERROR "cuda_check_only_link.cmake: no -o <output> in the link command")
endif()
get_filename_component(name "${output}" NAME)
file(WRITE "${output}" "#!/bin/sh
echo '${name}: no CUDA device: built with LAYOUT_CUDA_CHECK_ONLY=ON, its CUDA code compiled to check it, not linked; skipped' >&2
exit 77
")
file(CHMOD "${output}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
     GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
