# Runs one compile check: cmake -DPARAMS=<file> -P check.cmake
# PARAMS sets COMMAND (compiler and flags, a list), SOURCE, EXPECT (fail or pass) and REGEX.
# EXPECT fail: passes only if the compiler fails AND its output matches REGEX. With MAX_LINES
# also set: the first line that reports an error must match REGEX (the layout: message comes
# first), and the whole output must be at most MAX_LINES non-empty lines.
# EXPECT pass: passes only if the compiler succeeds.
cmake_minimum_required(VERSION 3.21)

if(NOT PARAMS)
    message(FATAL_ERROR "check.cmake: pass -DPARAMS=<file>")
endif()
include(${PARAMS})

# Plain ASCII, untranslated diagnostics, whatever the user's locale.
set(ENV{LC_ALL} C)
set(ENV{LANG} C)

execute_process(
    COMMAND ${COMMAND} ${SOURCE}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output)

string(JOIN " " command ${COMMAND} ${SOURCE})

if(EXPECT STREQUAL "pass")
    if(NOT result EQUAL 0)
        message(FATAL_ERROR "expected ${SOURCE} to compile, but it did not:\n${command}\n${output}")
    endif()
    message(STATUS "compiles, as expected: ${SOURCE}")
elseif(EXPECT STREQUAL "fail")
    if(result EQUAL 0)
        message(FATAL_ERROR "expected ${SOURCE} NOT to compile, but it compiled:\n${command}")
    endif()
    if(NOT output MATCHES "${REGEX}")
        message(FATAL_ERROR "${SOURCE} failed to compile, but without the expected error\n"
                            "expected (regex): ${REGEX}\n${command}\n${output}")
    endif()
    if(MAX_LINES)
        string(REPLACE ";" "," lines "${output}")
        string(REPLACE "\n" ";" lines "${lines}")
        list(FILTER lines EXCLUDE REGEX "^[ \t]*$")
        list(LENGTH lines line_count)
        set(first_error "")
        foreach(line IN LISTS lines)
            if(line MATCHES "error")
                set(first_error "${line}")
                break()
            endif()
        endforeach()
        if(NOT first_error MATCHES "${REGEX}")
            message(FATAL_ERROR "${SOURCE}: the first error is not the expected one\n"
                                "expected (regex): ${REGEX}\nfirst error: ${first_error}\n"
                                "${command}\n${output}")
        endif()
        if(line_count GREATER MAX_LINES)
            message(FATAL_ERROR "${SOURCE}: ${line_count} lines of compiler output, more than "
                                "${MAX_LINES}: something past the first error still fails\n"
                                "${command}\n${output}")
        endif()
        set(REGEX "${REGEX}, first, in ${line_count} lines")
    endif()
    message(STATUS "fails to compile with the expected error (${REGEX}): ${SOURCE}")
else()
    message(FATAL_ERROR "check.cmake: EXPECT must be fail or pass, not '${EXPECT}'")
endif()
