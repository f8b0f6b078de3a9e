# Compile checks in a few compiles rather than one each:
#   cmake -DPARAMS=<file> -P batch.cmake
# PARAMS sets COMMAND (the compiler and its flags, a list, as check.cmake's), SOURCES (the cases),
# DIR, EXPECT (fail, or pass: below) and, for fail, SPLIT (how the output divides into
# diagnostics: `blank`, nvcc's blocks separated by blank lines; `error`, g++'s and clang's: each
# error line with the lines before it back to the previous diagnostic, the include chain and
# instantiation context, and its notes and source lines after it). A compiler spends most of a
# check reading the headers (nvcc 3 to 7 s to refuse a file, 14 to compile one with
# <layout/layout.hpp>; g++ and clang about 1 s); this reads them once for all the cases. The
# unit of a round includes every header the cases include, then each case in a namespace of its
# own:
#     namespace layout_case_<stem> {
#     #include "<case>"
#     }
# A compiler reports each error with a path or a type that names its case (the case's line that
# instantiated the failing template, or a type of its namespace): the diagnostics that name a case
# go to DIR/<stem>.out, followed by those that name none (the compiler's own lines), for that
# case's test (check.cmake). Once a unit has errors, a front end may leave out the pending
# instantiations of function templates (nvcc's: a static_assert in a class template fires at
# once, one in a member function's body only at the end of the unit), so the cases that got no
# diagnostics go into another round, until a round names none of them.
# A case that includes with "" (a path relative to itself) is left out. The batch only ever
# confirms: a case with no diagnostics here, or whose diagnostics fall short of what its test
# expects, is compiled alone by its test, and that compile decides.
# EXPECT pass (nvcc's must-compile checks, whose whole compile takes longest): one round; if the
# unit compiles, DIR/<stem>.passed for each case, which its test takes as its own compile. A case
# that compiles only next to the others (a standard header that another case includes) still
# fails its C++ compiler's check, which compiles it alone.
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

# Sets <blocks> to the diagnostics of g++'s or clang's <output>, one an element: the lines before
# an error line (include chain, instantiation context), the error line, then its notes and the
# indented lines (source, caret) after them. A line that is none of these, after an error or a
# note, starts the next diagnostic (g++ gives a note an instantiation context of its own: that
# starts a block too, which names the same case).
function(split_at_errors output blocks)
    string(REPLACE "\n" ";" lines "${output}")
    set(result)
    set(block "")
    set(in_tail FALSE) # after an error or a note line
    foreach(line IN LISTS lines)
        if(line STREQUAL "")
            continue()
        endif()
        set(starts FALSE)
        if(line MATCHES ": (fatal )?error: ")
            set(starts ${in_tail})
            set(in_tail TRUE)
        elseif(line MATCHES ": note: ")
            set(in_tail TRUE)
        elseif(in_tail AND NOT line MATCHES "^[ \t]")
            set(starts TRUE)
            set(in_tail FALSE)
        endif()
        if(starts AND NOT block STREQUAL "")
            list(APPEND result "${block}")
            set(block "")
        endif()
        if(block STREQUAL "")
            set(block "${line}")
        else()
            string(APPEND block "\n${line}")
        endif()
    endforeach()
    if(NOT block STREQUAL "")
        list(APPEND result "${block}")
    endif()
    set(${blocks} "${result}" PARENT_SCOPE)
endfunction()

# Compiles the unit DIR/round<round>.cpp of the cases <sources>; sets <result> and <output> to the
# compiler's exit status and output (also in DIR/round<round>.log).
function(compile_round round sources result output)
    set(includes)
    set(cases "")
    foreach(source IN LISTS sources)
        file(STRINGS "${source}" lines REGEX "^[ \t]*#[ \t]*include")
        list(APPEND includes ${lines})
        get_filename_component(stem "${source}" NAME_WE)
        string(APPEND cases "namespace layout_case_${stem} {\n#include \"${source}\"\n}\n")
    endforeach()
    list(REMOVE_DUPLICATES includes)
    list(JOIN includes "\n" includes)
    set(unit "${DIR}/round${round}.cpp")
    file(WRITE "${unit}" "${includes}\n${cases}")
    execute_process(COMMAND ${COMMAND} "${unit}" RESULT_VARIABLE status
                    OUTPUT_VARIABLE text ERROR_VARIABLE text)
    file(WRITE "${DIR}/round${round}.log" "${text}")
    if(NOT status MATCHES "^[0-9]+$")
        message(FATAL_ERROR "batch.cmake: could not run the compiler (${status}): ${COMMAND}")
    endif()
    set(${result} "${status}" PARENT_SCOPE)
    set(${output} "${text}" PARENT_SCOPE)
endfunction()

if(EXPECT STREQUAL "pass")
    list(LENGTH pending count)
    if(count GREATER 1)
        compile_round(1 "${pending}" result output)
        if(result EQUAL 0)
            foreach(source IN LISTS pending)
                get_filename_component(stem "${source}" NAME_WE)
                file(WRITE "${DIR}/${stem}.passed" "")
            endforeach()
            message(STATUS "${count} cases compile together (${DIR}/round1.cpp)")
            return()
        endif()
    endif()
    string(REPLACE ";" " " pending "${pending}")
    message(STATUS "left to be compiled alone by their tests: ${pending}")
    return()
endif()

set(round 0)
list(LENGTH pending count)
while(count GREATER 1)
    math(EXPR round "${round} + 1")
    compile_round(${round} "${pending}" result output)
    if(result EQUAL 0)
        break() # nothing left fails here: the tests compile those cases alone
    endif()

    string(REPLACE ";" "${semicolon}" output "${output}")
    string(REPLACE "[" "${open_bracket}" output "${output}")
    string(REPLACE "]" "${close_bracket}" output "${output}")
    if(SPLIT STREQUAL "error")
        split_at_errors("${output}" blocks)
    else()
        string(REGEX MATCHALL "[^\n]+(\n[^\n]+)*" blocks "${output}")
    endif()
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
    message(STATUS "round ${round}: ${before} cases, ${named} with diagnostics "
                   "(${DIR}/round${round}.cpp)")
    if(named EQUAL 0)
        break()
    endif()
    set(pending ${left})
endwhile()
if(pending)
    string(REPLACE ";" " " pending "${pending}")
    message(STATUS "left to be compiled alone by their tests: ${pending}")
endif()
