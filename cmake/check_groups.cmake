# Sources that are compiled only to check them, checked several in one compiler run where nothing
# can tell them apart: the CUDA units under LAYOUT_CUDA_CHECK_ONLY (cuda_check_only.cmake, nvcc)
# and tests/host's under LAYOUT_HOST_TESTS=syntax_only (tests/CMakeLists.txt, g++ -fsyntax-only).
#
# Most of the time a compiler takes to check a small unit goes to the headers (nvcc: about 9 of a
# CUDA test's 10-40 s, <layout/layout.hpp> bringing CUB; g++: GoogleTest and the layout headers),
# and units instantiate many of the same templates. So the targets of one directory whose compile
# settings are the same (definitions, options, include directories, linked targets, standard)
# have their sources checked in groups: one generated unit includes every header the group's
# sources include, then each source inside a namespace of its own (`namespace layout_check_<stem>
# { #include ... }`), so that their file-local names cannot collide; that unit is compiled in the
# first source's place, with the first target's settings, which are everyone's; the other sources
# are not compiled on their own (HEADER_FILE_ONLY). Diagnostics name the source and line as
# before. Measured: tests/cuda's ten grouped sources 204 -> 119 s, bench's ten 139 -> 31 s, in two
# groups each (bench/results/local-2026-11-28-q/ci.md); tests/host's eleven, g++ -fsyntax-only,
# 68 -> 30 CPU-s in two (bench/results/local-2026-11-29-r/ci.md).
#
# A source is checked alone where a group could change what it means: one with preprocessor
# logic of its own (#define, #undef, #if...: the headers come first, at global scope, before any of
# it), a named namespace of its own or an explicit specialization (neither may move into another
# namespace), a replacement operator new or delete (global only), a main() without a return
# statement (only the global one may end without), a source with properties of its own, or one
# shared by targets of the directory.
# Given up, in CI only: the check that each of these sources includes everything it uses (the
# GPU machine builds every unit on its own, the clang build compiles tests/host's one by one, and
# the header tests check each header alone).

set(LAYOUT_CHECK_GROUP_SIZE 8 CACHE STRING
    "Most sources checked in one compiler run (check_groups.cmake; 1: each alone)")

# Sets <out> to TRUE if <path> can share a unit with others (see above).
function(layout_check_source_groupable path out)
    file(STRINGS "${path}" blockers
         REGEX "^[ \t]*#[ \t]*(define|undef|if|ifdef|ifndef|elif)|^namespace [A-Za-z_][A-Za-z_0-9]* *{|^template *<>|^[A-Za-z_].*operator (new|delete)")
    # main() may end without a return statement, a function of another namespace may not.
    file(STRINGS "${path}" main REGEX "^int main *\\(")
    file(STRINGS "${path}" returns REGEX "^[ \t]+return[ ;]")
    if(blockers OR (main AND NOT returns))
        set(${out} FALSE PARENT_SCOPE)
    else()
        set(${out} TRUE PARENT_SCOPE)
    endif()
endfunction()

# Sets <out> to the #include lines that a group unit writes before its sources: each one once, in
# the order met. A quoted include found next to the source that includes it gets its full path
# (the unit is elsewhere); the others are written as they are and found as the source found them,
# through the same include directories.
function(layout_check_group_includes out)
    set(lines "")
    foreach(path IN LISTS ARGN)
        get_filename_component(dir "${path}" DIRECTORY)
        file(STRINGS "${path}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
        foreach(line IN LISTS includes)
            string(STRIP "${line}" line)
            set(quoted "")
            if(line MATCHES "\"([^\"]+)\"")
                set(quoted "${dir}/${CMAKE_MATCH_1}")
            endif()
            if(quoted AND EXISTS "${quoted}")
                file(REAL_PATH "${quoted}" header)
                set(line "#include \"${header}\"")
            endif()
            if(NOT line IN_LIST lines)
                list(APPEND lines "${line}")
            endif()
        endforeach()
    endforeach()
    set(${out} "${lines}" PARENT_SCOPE)
endfunction()

# Writes the unit of one group (<carrier> first; <members> are target;source pairs flattened),
# a source of extension <ext>, and puts it in the carrier's place.
function(layout_write_check_group ext carrier)
    set(members ${ARGN})
    set(paths "")
    set(body "")
    while(members)
        list(POP_FRONT members target path)
        list(APPEND paths "${path}")
        get_filename_component(stem "${path}" NAME_WE)
        string(MAKE_C_IDENTIFIER "${stem}" stem)
        string(APPEND body "namespace layout_check_${stem} {\n#include \"${path}\"\n}\n")
        set_source_files_properties("${path}" TARGET_DIRECTORY ${target}
                                    PROPERTIES HEADER_FILE_ONLY ON)
    endwhile()
    layout_check_group_includes(includes ${paths})
    list(JOIN includes "\n" includes)
    set(unit "${PROJECT_BINARY_DIR}/check_groups/${carrier}.${ext}")
    # CONFIGURE writes only when the text changed: a new configure rebuilds nothing by itself.
    file(CONFIGURE OUTPUT "${unit}" CONTENT
"// Generated by cmake/check_groups.cmake: these sources checked in one compiler run, each in a
// namespace of its own. Do not edit.
${includes}
${body}" @ONLY)
    target_sources(${carrier} PRIVATE "${unit}")
    if(ext STREQUAL "cpp" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        # g++ takes the sources' anonymous namespaces for a header's (they are included here).
        set_source_files_properties("${unit}" TARGET_DIRECTORY ${carrier}
                                    PROPERTIES COMPILE_OPTIONS -Wno-subobject-linkage)
    endif()
    set_property(GLOBAL APPEND PROPERTY LAYOUT_CHECK_GROUP_UNITS "${unit}")
endfunction()

# Removes the units of groups that an earlier configure made and this one did not (deferred to
# the end of the configure by layout_group_checks).
function(layout_remove_stale_check_groups)
    get_property(units GLOBAL PROPERTY LAYOUT_CHECK_GROUP_UNITS)
    file(GLOB stale "${PROJECT_BINARY_DIR}/check_groups/*")
    foreach(unit IN LISTS stale)
        if(NOT unit IN_LIST units)
            file(REMOVE "${unit}")
        endif()
    endforeach()
endfunction()

# Groups the sources of extension <ext> (cu or cpp) of <targets>, each target with one such
# source (executables or object libraries), as described above.
function(layout_group_checks ext)
    get_property(cleanup GLOBAL PROPERTY LAYOUT_CHECK_GROUPS_CLEANUP)
    if(NOT cleanup) # once, after every call of this configure
        set_property(GLOBAL PROPERTY LAYOUT_CHECK_GROUPS_CLEANUP ON)
        cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL layout_remove_stale_check_groups)
    endif()
    if(LAYOUT_CHECK_GROUP_SIZE LESS 2)
        return()
    endif()
    # Candidates: targets with one such source, which no other target of the directory has.
    set(candidates "")
    set(seen "")
    set(shared "")
    foreach(target IN LISTS ARGN)
        get_target_property(sources ${target} SOURCES)
        list(FILTER sources INCLUDE REGEX "\\.${ext}$")
        get_target_property(dir ${target} SOURCE_DIR)
        foreach(source IN LISTS sources)
            cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${dir}" OUTPUT_VARIABLE path)
            if("${dir}|${path}" IN_LIST seen)
                list(APPEND shared "${dir}|${path}")
            endif()
            list(APPEND seen "${dir}|${path}")
        endforeach()
        get_target_property(type ${target} TYPE)
        list(LENGTH sources count)
        if(type MATCHES "^(EXECUTABLE|OBJECT_LIBRARY)$" AND count EQUAL 1)
            list(APPEND candidates ${target})
            set(path_of_${target} "${path}")
        endif()
    endforeach()

    # Groups: the key is every setting that decides how a unit of the target compiles.
    set(keys "")
    foreach(target IN LISTS candidates)
        set(path "${path_of_${target}}")
        get_target_property(dir ${target} SOURCE_DIR)
        layout_check_source_groupable("${path}" groupable)
        get_source_file_property(own_defs "${path}" TARGET_DIRECTORY ${target} COMPILE_DEFINITIONS)
        get_source_file_property(own_opts "${path}" TARGET_DIRECTORY ${target} COMPILE_OPTIONS)
        get_source_file_property(own_dirs "${path}" TARGET_DIRECTORY ${target} INCLUDE_DIRECTORIES)
        if(NOT groupable OR "${dir}|${path}" IN_LIST shared OR own_defs OR own_opts OR own_dirs)
            continue()
        endif()
        set(key "${dir}")
        foreach(property IN ITEMS COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FEATURES
                                  INCLUDE_DIRECTORIES LINK_LIBRARIES CUDA_STANDARD CXX_STANDARD
                                  CUDA_EXTENSIONS CUDA_SEPARABLE_COMPILATION PRECOMPILE_HEADERS)
            get_target_property(value ${target} ${property})
            string(APPEND key "|${property}=${value}")
        endforeach()
        string(MD5 key "${key}")
        if(NOT key IN_LIST keys)
            list(APPEND keys ${key})
        endif()
        list(APPEND group_${key} ${target} "${path}")
    endforeach()

    # A directory's group of n sources is checked in ceil(n / size) units of about equal size.
    foreach(key IN LISTS keys)
        set(members ${group_${key}})
        list(LENGTH members items)
        math(EXPR sources "${items} / 2")
        math(EXPR units "(${sources} + ${LAYOUT_CHECK_GROUP_SIZE} - 1) / ${LAYOUT_CHECK_GROUP_SIZE}")
        math(EXPR per_unit "2 * ((${sources} + ${units} - 1) / ${units})")
        while(members)
            list(LENGTH members items)
            if(items GREATER per_unit)
                list(SUBLIST members 0 ${per_unit} chunk)
                list(SUBLIST members ${per_unit} -1 members)
            else()
                set(chunk ${members})
                set(members "")
            endif()
            list(LENGTH chunk items)
            if(items GREATER 2) # two sources or more
                list(GET chunk 0 carrier)
                layout_write_check_group(${ext} ${carrier} ${chunk})
            endif()
        endwhile()
    endforeach()
endfunction()

