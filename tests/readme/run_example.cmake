# Runs one README example and checks what it prints:
#   cmake -DPROGRAM=<executable> -DSOURCE=<its .cpp/.cu> [-DCUDA=ON] -P run_example.cmake
# It must exit with 0, and where its source has a printf, the comment that ends the source's last
# printf line is the output's last line (`std::printf(...);  // x 1, y 2`: the program prints
# "x 1, y 2"). So the outputs the README shows are checked too.
# CUDA=ON: where the CUDA runtime finds no usable device, the example fails at its first CUDA
# call (the README's code has no error handling to spare), or, built with LAYOUT_CUDA_CHECK_ONLY,
# was never linked and says "no CUDA device"; this says "skipped" then, which the test's
# SKIP_REGULAR_EXPRESSION turns into a skip. Any other failure fails the test.
cmake_minimum_required(VERSION 3.21)

execute_process(COMMAND ${PROGRAM} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message(STATUS "${PROGRAM}: exit ${result}\n${output}${errors}")
if(CUDA AND "${output}${errors}" MATCHES
   "no CUDA-capable device|CUDA driver version is insufficient|CUDA driver is a stub|no CUDA device")
    message(STATUS "no CUDA device: README example skipped")
    return()
endif()
if(NOT result EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} failed: exit ${result}")
endif()

file(READ "${SOURCE}" text)
string(FIND "${text}" "printf(" at REVERSE)
if(at EQUAL -1)
    return()
endif()
string(SUBSTRING "${text}" ${at} -1 line)
string(FIND "${line}" "\n" end)
string(SUBSTRING "${line}" 0 ${end} line)
string(FIND "${line}" "// " comment)
if(comment EQUAL -1)
    message(FATAL_ERROR "${SOURCE}: the last printf line has no `// <expected output>` comment")
endif()
math(EXPR comment "${comment} + 3")
string(SUBSTRING "${line}" ${comment} -1 expected)
string(STRIP "${expected}" expected)

string(STRIP "${output}" printed)
string(FIND "${printed}" "\n" last_newline REVERSE)
math(EXPR last_newline "${last_newline} + 1")
string(SUBSTRING "${printed}" ${last_newline} -1 last_line)
if(NOT last_line STREQUAL expected)
    message(FATAL_ERROR "${PROGRAM} printed\n  ${last_line}\nbut ${SOURCE} says it prints\n  ${expected}")
endif()
message(STATUS "prints \"${expected}\", as its source says")
