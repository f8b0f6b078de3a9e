# Included by the launchers run as `cmake -P <launcher> -- <command...>` (check_only_compile.cmake,
# cuda_check_only_link.cmake): sets `command` to the command they were given and `output` to its
# argument after -o.
set(command)
set(output)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 4 ${last}) # after `cmake -P <launcher> --`
    list(APPEND command "${CMAKE_ARGV${i}}")
    if(CMAKE_ARGV${i} STREQUAL "-o" AND i LESS last)
        math(EXPR next "${i} + 1")
        set(output "${CMAKE_ARGV${next}}")
    endif()
endforeach()
if(NOT output)
    message(FATAL_ERROR "${CMAKE_ARGV2}: no -o <output> in the command")
endif()
