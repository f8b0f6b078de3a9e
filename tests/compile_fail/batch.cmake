# nvcc's must-not-compile checks in a few compiles rather than one each:
#   cmake -DPARAMS=<file> -P batch.cmake
# PARAMS sets COMMAND (nvcc and its flags, a list, as check.cmake's), SOURCES (the cases) and DIR.
# nvcc takes 3 to 7 s to refuse a file, nearly all of it in reading the headers; this reads them
# once for all the cases. The unit of a round includes every header the cases include, then each
# case in a namespace of its own:
#     namespace layout_case_<stem> {
#     #include "<case>"
#     }
# nvcc's front end reports each error with a path or a type that names its case (the case's line
# that instantiated the failing template, or a type of its namespace). Its diagnostics are blocks
# separated by blank lines: those that name a case go to DIR/<stem>.out, followed by those that
# name none (nvcc's own lines), for that case's test (check.cmake). Once a unit has errors, the
# front end leaves out the pending instantiations of function templates (a static_assert in a
# class template fires at once, one in a member function's body only at the end of the unit), so
# the cases that got no diagnostics go into another round, until a round names none of them.
# A case that includes with "" (a path relative to itself) is left out. The batch only ever
# confirms: a case with no diagnostics here, or whose diagnostics fall short of what its test
# expects, is compiled alone by its test, and that compile decides.
cmake_minimum_required(VERSION 3.21)

if(NOT PARAMS)
    message(FATAL_ERROR "batch.cmake: pass -DPARAMS=<file>")
endif()
include(${PARAMS})

set(ENV{LC_ALL} C)
set(ENV{LANG} C)

file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")

set(pending)
foreach(source IN LISTS SOURCES)
    file(STRINGS "${source}" quoted REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    if(NOT quoted)
        list(APPEND pending "${source}")
    endif()
endforeach()

# CMake lists split at ';' and keep '[...]' together: both are replaced in the output while it is
# cut into blocks, and put back when a block is written.
string(ASCII 1 semicolon)
string(ASCII 2 open_bracket)
string(ASCII 3 close_bracket)

set(round 0)
list(LENGTH pending count)
while(count GREATER 1)
    math(EXPR round "${round} + 1")
    set(includes)
    set(cases "")
    foreach(source IN LISTS pending)
        file(STRINGS "${source}" lines REGEX "^[ \t]*#[ \t]*include")
        list(APPEND includes ${lines})
        get_filename_component(stem "${source}" NAME_WE)
        string(APPEND cases "namespace layout_case_${stem} {\n#include \"${source}\"\n}\n")
    endforeach()
    list(REMOVE_DUPLICATES includes)
    list(JOIN includes "\n" includes)
    set(unit "${DIR}/round${round}.cpp")
    file(WRITE "${unit}" "${includes}\n${cases}")
    execute_process(COMMAND ${COMMAND} "${unit}" RESULT_VARIABLE result
                    OUTPUT_VARIABLE output ERROR_VARIABLE output)
    file(WRITE "${DIR}/round${round}.log" "${output}")
    if(NOT result MATCHES "^[0-9]+$")
        message(FATAL_ERROR "batch.cmake: could not run the compiler (${result}): ${COMMAND}")
    endif()
    if(result EQUAL 0)
        break() # nothing left fails here: the tests compile those cases alone
    endif()

    string(REPLACE ";" "${semicolon}" output "${output}")
    string(REPLACE "[" "${open_bracket}" output "${output}")
    string(REPLACE "]" "${close_bracket}" output "${output}")
    string(REGEX MATCHALL "[^\n]+(\n[^\n]+)*" blocks "${output}")
    set(unnamed "")
    foreach(source IN LISTS pending)
        get_filename_component(stem "${source}" NAME_WE)
        set(named_${stem} "")
    endforeach()
    foreach(block IN LISTS blocks)
        set(owner "")
        foreach(source IN LISTS pending)
            get_filename_component(stem "${source}" NAME_WE)
            string(FIND "${block}" "layout_case_${stem}::" at_type)
            string(FIND "${block}" "${source}" at_path)
            if(at_type GREATER -1 OR at_path GREATER -1)
                set(owner ${stem})
                break()
            endif()
        endforeach()
        if(owner)
            string(APPEND named_${owner} "${block}\n\n")
        else()
            string(APPEND unnamed "${block}\n\n")
        endif()
    endforeach()

    set(left)
    foreach(source IN LISTS pending)
        get_filename_component(stem "${source}" NAME_WE)
        if(named_${stem} STREQUAL "")
            list(APPEND left "${source}")
            continue()
        endif()
        set(text "${named_${stem}}${unnamed}")
        string(REPLACE "${semicolon}" ";" text "${text}")
        string(REPLACE "${open_bracket}" "[" text "${text}")
        string(REPLACE "${close_bracket}" "]" text "${text}")
        file(WRITE "${DIR}/${stem}.out" "${text}")
    endforeach()
    list(LENGTH pending before)
    list(LENGTH left count)
    math(EXPR named "${before} - ${count}")
    message(STATUS "round ${round}: ${before} cases, ${named} with diagnostics (${unit})")
    if(named EQUAL 0)
        break()
    endif()
    set(pending ${left})
endwhile()
if(pending)
    string(REPLACE ";" " " pending "${pending}")
    message(STATUS "left to be compiled alone by their tests: ${pending}")
endif()
