# The link step of a CUDA executable under LAYOUT_CUDA_CHECK_ONLY (cuda_check_only.cmake), run as
# its RULE_LAUNCH_LINK: `cmake -P cuda_check_only_link.cmake -- <the link command...>`. Its objects
# hold the device code as LTO IR, which only a device link (code generation for every kernel, the
# cost the mode avoids) would turn into a program, so nothing is linked: the output (the argument
# after -o) becomes a script that says so and exits 77, which CTest reports as skipped. Its
# message has the words the GPU programs print where there is no GPU ("no CUDA device"), which
# the scripts and tests that run them look for (tests/md).
include(${CMAKE_CURRENT_LIST_DIR}/launcher_arguments.cmake)
get_filename_component(name "${output}" NAME)
file(WRITE "${output}" "#!/bin/sh
echo '${name}: no CUDA device: built with LAYOUT_CUDA_CHECK_ONLY=ON, its CUDA code compiled to check it, not linked; skipped' >&2
exit 77
")
file(CHMOD "${output}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
     GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
