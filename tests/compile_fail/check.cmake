# Runs one compile check: cmake -DPARAMS=<file> -P check.cmake
# PARAMS sets COMMAND (compiler and flags, a list), SOURCE, EXPECT (fail or pass) and REGEX.
# EXPECT fail: passes only if the compiler fails AND its output matches REGEX. With MAX_LINES
# also set: the first line that reports an error must match REGEX (the layout: message comes
# first), and the whole output must be at most MAX_LINES non-empty lines.
# EXPECT pass: passes only if the compiler succeeds.
# With BATCH_DIR also set (batch.cmake), what the batch compile found is read first: for fail, the
# diagnostics it attributed to SOURCE, checked in the same way; for pass, whether SOURCE compiled
# there. Only where that is missing, older than SOURCE, or falls short is SOURCE compiled alone,
# and that compile decides.
cmake_minimum_required(VERSION 3.21)

if(NOT PARAMS)
    message(FATAL_ERROR "check.cmake: pass -DPARAMS=<file>")
endif()
include(${PARAMS})

# Plain ASCII, untranslated diagnostics, whatever the user's locale.
set(ENV{LC_ALL} C)
set(ENV{LANG} C)

string(JOIN " " command ${COMMAND} ${SOURCE})

# Sets <problem> to what is wrong with a compile that should have failed (empty if nothing) and
# <summary> to what was checked.
function(check_failed_compile result output problem summary)
    set(${summary} "${REGEX}" PARENT_SCOPE)
    if(result EQUAL 0)
        set(${problem} "expected ${SOURCE} NOT to compile, but it compiled" PARENT_SCOPE)
        return()
    endif()
    if(NOT output MATCHES "${REGEX}")
        string(CONCAT message "${SOURCE} failed to compile, but without the expected error\n"
                              "expected (regex): ${REGEX}")
        set(${problem} "${message}" PARENT_SCOPE)
        return()
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
            string(CONCAT message "${SOURCE}: the first error is not the expected one\n"
                                  "expected (regex): ${REGEX}\nfirst error: ${first_error}")
            set(${problem} "${message}" PARENT_SCOPE)
            return()
        endif()
        if(line_count GREATER MAX_LINES)
            string(CONCAT message "${SOURCE}: ${line_count} lines of compiler output, more than "
                                  "${MAX_LINES}: something past the first error still fails")
            set(${problem} "${message}" PARENT_SCOPE)
            return()
        endif()
        set(${summary} "${REGEX}, first, in ${line_count} lines" PARENT_SCOPE)
    endif()
    set(${problem} "" PARENT_SCOPE)
endfunction()

if(BATCH_DIR)
    # What batch.cmake left for SOURCE: its diagnostics (fail), or a mark that it compiled (pass).
    get_filename_component(stem "${SOURCE}" NAME_WE)
    if(EXPECT STREQUAL "fail")
        set(found "${BATCH_DIR}/${stem}.out")
    else()
        set(found "${BATCH_DIR}/${stem}.passed")
    endif()
    # Only what was written after the case last changed (a run that leaves the batch fixture out,
    # `ctest -FS`, could find older files).
    if(NOT EXISTS "${found}" OR "${SOURCE}" IS_NEWER_THAN "${found}")
        message(STATUS "nothing on ${SOURCE} from a batch compile since it last changed; "
                       "compiled alone")
    elseif(EXPECT STREQUAL "pass")
        message(STATUS "compiles, as expected: ${SOURCE} (with the other cases of ${BATCH_DIR})")
        return()
    else()
        file(READ "${found}" output)
        check_failed_compile(1 "${output}" problem summary)
        if(NOT problem)
            message(STATUS "fails to compile with the expected error (${summary}): ${SOURCE} "
                           "(its diagnostics in the batch compile, ${found})")
            return()
        endif()
        message(STATUS "the batch compile's diagnostics fall short (${problem}); compiled alone")
    endif()
endif()

execute_process(
    COMMAND ${COMMAND} ${SOURCE}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output)

if(EXPECT STREQUAL "pass")
    if(NOT result EQUAL 0)
        message(FATAL_ERROR "expected ${SOURCE} to compile, but it did not:\n${command}\n${output}")
    endif()
    message(STATUS "compiles, as expected: ${SOURCE}")
elseif(EXPECT STREQUAL "fail")
    check_failed_compile("${result}" "${output}" problem summary)
    if(problem)
        message(FATAL_ERROR "${problem}\n${command}\n${output}")
    endif()
    message(STATUS "fails to compile with the expected error (${summary}): ${SOURCE}")
else()
    message(FATAL_ERROR "check.cmake: EXPECT must be fail or pass, not '${EXPECT}'")
endif()
