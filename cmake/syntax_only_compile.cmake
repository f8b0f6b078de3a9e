# The compile step of a unit built only to be checked (-fsyntax-only among its flags: the front
# end and template instantiation, no code generation), run as its RULE_LAUNCH_COMPILE:
# `cmake -P syntax_only_compile.cmake -- <the compile command...>`. The compiler writes no object
# file, so this creates it, empty, once the compile has succeeded: the build then counts the unit
# as done and checks it again only when something it includes changes (the depfile, -MD, is
# still written).
include(${CMAKE_CURRENT_LIST_DIR}/launcher_arguments.cmake)
execute_process(COMMAND ${command} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
    # The compiler's own diagnostics came first; this only sets the exit status.
    message(FATAL_ERROR "syntax-only compile of ${output} failed")
endif()
file(TOUCH "${output}")
