# The compile step of a unit built only to be checked (-fsyntax-only among its flags: the front
# end and template instantiation, no code generation), run as its RULE_LAUNCH_COMPILE:
# `cmake -P syntax_only_compile.cmake -- <the compile command...>`. The compiler writes no object
# file, so this creates it, empty, once the compile has succeeded: the build then counts the unit
# as done and checks it again only when something it includes changes (the depfile, -MD, is
# still written).
set(command)
set(output)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 4 ${last}) # after `cmake -P <script> --`
    list(APPEND command "${CMAKE_ARGV${i}}")
    if(CMAKE_ARGV${i} STREQUAL "-o" AND i LESS last)
        math(EXPR next "${i} + 1")
        set(output "${CMAKE_ARGV${next}}")
    endif()
endforeach()
if(NOT output)
    message(FATAL_ERROR "syntax_only_compile.cmake: no -o <output> in the compile command")
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
    # The compiler's own diagnostics came first; this only sets the exit status.
    message(FATAL_ERROR "syntax-only compile of ${output} failed")
endif()
file(TOUCH "${output}")
