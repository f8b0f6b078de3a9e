# Checks that every C++ code block of README.md is, byte for byte, a file of this directory, so
# that the README's code is code the build compiles (and, for host blocks, runs).
#
#   cmake -DREADME=<README.md> -DDIR=<tests/readme> -P check_readme.cmake
#   cmake -DREADME=<README.md> -DDIR=<tests/readme> -DUPDATE=ON -P check_readme.cmake
#
# Block k (counting ```cpp and ```cuda blocks from 1, in README order) is the file of DIR whose
# name starts with k as two digits and an underscore: 01_host.cpp, 02_device.cu, ... A ```cpp
# block is a .cpp file (host C++), a ```cuda block a .cu file (built only when CUDA is enabled).
# Other fences (```bash, ```cmake, ```sh) are not checked. UPDATE=ON rewrites the files from the
# README (a block with no file yet needs one created by hand first, to choose its name).
cmake_minimum_required(VERSION 3.21)

if(NOT README OR NOT DIR)
    message(FATAL_ERROR "check_readme.cmake: pass -DREADME=<README.md> -DDIR=<directory>")
endif()

file(READ "${README}" text)
string(REPLACE "\r\n" "\n" text "${text}")

file(GLOB files RELATIVE "${DIR}" "${DIR}/[0-9][0-9]_*.cpp" "${DIR}/[0-9][0-9]_*.cu")
list(SORT files)

set(rest "${text}")
set(consumed 0) # characters of text before rest
set(count 0)
set(failures "")
while(TRUE)
    # An opening fence: ```cpp or ```cuda alone on a line.
    string(REGEX MATCH "(^|\n)```(cpp|cuda)\n" fence "${rest}")
    if(NOT fence)
        break()
    endif()
    string(FIND "${rest}" "${fence}" at)
    string(LENGTH "${fence}" fence_length)
    string(REGEX REPLACE "^\n?```([a-z]+)\n$" "\\1" language "${fence}")
    math(EXPR body_at "${at} + ${fence_length}")

    # Line number of the fence in README.md, for the messages.
    math(EXPR before_length "${consumed} + ${at}")
    string(SUBSTRING "${text}" 0 ${before_length} before)
    string(REGEX MATCHALL "\n" newlines "${before}")
    list(LENGTH newlines line)
    if(fence MATCHES "^\n")
        math(EXPR line "${line} + 2")
    else()
        math(EXPR line "${line} + 1")
    endif()

    string(SUBSTRING "${rest}" ${body_at} -1 rest)
    math(EXPR consumed "${consumed} + ${body_at}")
    # The closing fence: ``` at the start of a line.
    if(rest MATCHES "^```")
        set(body_length 0)
    else()
        string(FIND "${rest}" "\n```" close)
        if(close EQUAL -1)
            message(FATAL_ERROR "README.md:${line}: the ```${language} block is never closed")
        endif()
        math(EXPR body_length "${close} + 1")
    endif()
    string(SUBSTRING "${rest}" 0 ${body_length} body)
    string(SUBSTRING "${rest}" ${body_length} -1 rest)
    math(EXPR consumed "${consumed} + ${body_length}")

    math(EXPR count "${count} + 1")
    if(count LESS 10)
        set(prefix "0${count}_")
    else()
        set(prefix "${count}_")
    endif()
    if(language STREQUAL "cpp")
        set(extension ".cpp")
    else()
        set(extension ".cu")
    endif()

    set(file "")
    foreach(candidate IN LISTS files)
        if(candidate MATCHES "^${prefix}")
            set(file "${candidate}")
        endif()
    endforeach()
    if(NOT file)
        string(APPEND failures "README.md:${line}: ```${language} block ${count} has no file "
                             "${DIR}/${prefix}<name>${extension}\n")
        continue()
    endif()
    if(NOT file MATCHES "\\${extension}$")
        string(APPEND failures "README.md:${line}: block ${count} is ```${language}, so its file must "
                             "end in ${extension}, not ${file}\n")
        continue()
    endif()

    file(READ "${DIR}/${file}" content)
    if(NOT content STREQUAL body)
        if(UPDATE)
            file(WRITE "${DIR}/${file}" "${body}")
            message(STATUS "updated ${file} from README.md:${line}")
        else()
            # Name the first line that differs (walking both texts line by line: CMake lists
            # would split at the code's semicolons and group at its brackets).
            set(a_rest "${body}")
            set(b_rest "${content}")
            set(k 1)
            set(differs "")
            while(NOT differs)
                string(FIND "${a_rest}" "\n" a_end)
                string(FIND "${b_rest}" "\n" b_end)
                string(SUBSTRING "${a_rest}" 0 ${a_end} a)
                string(SUBSTRING "${b_rest}" 0 ${b_end} b)
                if(NOT a STREQUAL b OR a_end EQUAL -1 OR b_end EQUAL -1)
                    math(EXPR readme_line "${line} + ${k}")
                    set(differs "README.md:${readme_line} is\n    ${a}\n  and ${file}:${k} is\n    ${b}")
                    if(a STREQUAL b)
                        set(differs "one ends at line ${k}, the other goes on (or a final newline differs)")
                    endif()
                    break()
                endif()
                math(EXPR a_end "${a_end} + 1")
                math(EXPR b_end "${b_end} + 1")
                string(SUBSTRING "${a_rest}" ${a_end} -1 a_rest)
                string(SUBSTRING "${b_rest}" ${b_end} -1 b_rest)
                math(EXPR k "${k} + 1")
            endwhile()
            string(APPEND failures "README.md:${line}: block ${count} differs from ${file}: ${differs}\n")
        endif()
    endif()
endwhile()

list(LENGTH files n_files)
if(n_files GREATER count)
    math(EXPR first_extra "${count}")
    list(SUBLIST files ${first_extra} -1 extra)
    string(APPEND failures "files with no README block: ${extra} (README.md has ${count} ```cpp/```cuda blocks)\n")
endif()

if(failures)
    set(report "${failures}")
    message(FATAL_ERROR "README.md and ${DIR} are out of sync:\n${report}"
                        "(fix one side; -DUPDATE=ON copies the README's blocks into the files)")
endif()
message(STATUS "README.md: ${count} code blocks, each identical to its file in ${DIR}")
