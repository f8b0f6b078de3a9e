# The compile step of a unit built only to be checked, run as its RULE_LAUNCH_COMPILE:
# `cmake -P check_only_compile.cmake -- <the compile command...>`.
# - A C++ unit has -fsyntax-only among its flags: the front end and template instantiation, no
#   code generation (LAYOUT_HOST_TESTS=syntax_only, tests/CMakeLists.txt).
# - A CUDA unit (`-x cu`, LAYOUT_CUDA_CHECK_ONLY: cuda_check_only.cmake) is compiled with -cuda
#   in place of -c: nvcc's front end over host and device code and the device code to NVVM IR,
#   without the host compiler's pass over nvcc's output. nvcc then writes that output (the host
#   code, preprocessed, about 18 MB) where the object would go: it is emptied.
# Either way there is no object: this leaves an empty one once the compile has succeeded, so that
# the build counts the unit as done and checks it again only when something it includes changes
# (the depfile, -MD, is still written).
include(${CMAKE_CURRENT_LIST_DIR}/launcher_arguments.cmake)
if(";${command};" MATCHES ";-x;cu;")
    list(TRANSFORM command REPLACE "^-c$" "-cuda")
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
    # The compiler's own diagnostics came first; this only sets the exit status.
    message(FATAL_ERROR "check-only compile of ${output} failed")
endif()
file(WRITE "${output}" "")
