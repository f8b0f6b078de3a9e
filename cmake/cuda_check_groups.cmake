# Under LAYOUT_CUDA_CHECK_ONLY (cuda_check_only.cmake): the CUDA units checked together, several
# in one nvcc run, where nothing can tell them apart.
#
# Most of the time nvcc takes to check a small unit goes to the headers (<layout/layout.hpp>
# brings CUB: about 9 of a test's 10-40 s, front end and device IR alike), and units instantiate
# many of the same templates. So the executables of one directory whose compile settings are the
# same (definitions, options, include directories, linked targets, standard) have their .cu
# sources checked in groups: one generated unit includes every header the group's sources include,
# then each source inside a namespace of its own (`namespace layout_check_<stem> { #include ... }`),
# so that their file-local names cannot collide; that unit is compiled in the first source's
# place, with the first target's settings, which are everyone's; the other sources are not
# compiled on their own (HEADER_FILE_ONLY). nvcc's diagnostics name the source and line as before.
# Measured: tests/cuda's ten grouped sources 204 -> 119 s, bench's ten 139 -> 31 s, in two groups
# each (bench/results/local-2026-11-28-q/ci.md).
#
# A source is checked alone where a group could change what it means: one with preprocessor
# logic of its own (#define, #undef, #if...: the headers come first, at global scope, before any of
# it), a named namespace of its own or an explicit specialization (neither may move into another
# namespace), a main() without a return statement (only the global one may end without), a source
# with properties of its own, or one shared by targets of the directory.
# Given up, in CI only: the check that each of these sources includes everything it uses (the
# GPU machine builds every unit on its own, and the header tests check each header alone).

set(LAYOUT_CUDA_CHECK_GROUP_SIZE 8 CACHE STRING
    "Most CUDA sources checked in one nvcc run under LAYOUT_CUDA_CHECK_ONLY (1: each alone)")

# Sets <out> to the absolute path of <source> of <target>.
function(layout_absolute_source target source out)
    if(IS_ABSOLUTE "${source}")
        set(${out} "${source}" PARENT_SCOPE)
    else()
        get_target_property(dir ${target} SOURCE_DIR)
        set(${out} "${dir}/${source}" PARENT_SCOPE)
    endif()
endfunction()

# Sets <out> to TRUE if <path> can share a unit with others (see above).
function(layout_cuda_source_groupable path out)
    file(STRINGS "${path}" blockers
         REGEX "^[ \t]*#[ \t]*(define|undef|if|ifdef|ifndef|elif)|^namespace [A-Za-z_][A-Za-z_0-9]* *{|^template *<>")
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
function(layout_cuda_group_includes out)
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

# Writes the unit of one group (<carrier> first; <members> are target;source pairs flattened)
# and puts it in the carrier's place.
function(layout_cuda_write_group carrier)
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
    layout_cuda_group_includes(includes ${paths})
    list(JOIN includes "\n" includes)
    set(unit "${PROJECT_BINARY_DIR}/cuda_check_groups/${carrier}.cu")
    # CONFIGURE writes only when the text changed: a new configure rebuilds nothing by itself.
    file(CONFIGURE OUTPUT "${unit}" CONTENT
"// Generated by cmake/cuda_check_groups.cmake (LAYOUT_CUDA_CHECK_ONLY): these sources checked
// in one nvcc run, each in a namespace of its own. Do not edit.
${includes}
${body}" @ONLY)
    target_sources(${carrier} PRIVATE "${unit}")
    set_property(GLOBAL APPEND PROPERTY LAYOUT_CUDA_CHECK_GROUP_UNITS "${unit}")
endfunction()

# Removes the units of groups that an earlier configure made and this one did not.
function(layout_remove_stale_cuda_groups)
    get_property(units GLOBAL PROPERTY LAYOUT_CUDA_CHECK_GROUP_UNITS)
    file(GLOB stale "${PROJECT_BINARY_DIR}/cuda_check_groups/*.cu")
    foreach(unit IN LISTS stale)
        if(NOT unit IN_LIST units)
            file(REMOVE "${unit}")
        endif()
    endforeach()
endfunction()

# Groups the single .cu sources of <targets> (the CUDA targets) as described above.
function(layout_group_cuda_checks)
    if(LAYOUT_CUDA_CHECK_GROUP_SIZE LESS 2)
        layout_remove_stale_cuda_groups()
        return()
    endif()
    # Candidates: executables with one .cu source, which no other target of the directory has.
    set(candidates "")
    set(seen "")
    set(shared "")
    foreach(target IN LISTS ARGN)
        get_target_property(sources ${target} SOURCES)
        list(FILTER sources INCLUDE REGEX "\\.cu$")
        get_target_property(dir ${target} SOURCE_DIR)
        foreach(source IN LISTS sources)
            layout_absolute_source(${target} "${source}" path)
            if("${dir}|${path}" IN_LIST seen)
                list(APPEND shared "${dir}|${path}")
            endif()
            list(APPEND seen "${dir}|${path}")
        endforeach()
        get_target_property(type ${target} TYPE)
        list(LENGTH sources count)
        if(type STREQUAL "EXECUTABLE" AND count EQUAL 1)
            list(APPEND candidates ${target})
            set(path_of_${target} "${path}")
        endif()
    endforeach()

    # Groups: the key is every setting that decides how a unit of the target compiles.
    set(keys "")
    foreach(target IN LISTS candidates)
        set(path "${path_of_${target}}")
        get_target_property(dir ${target} SOURCE_DIR)
        layout_cuda_source_groupable("${path}" groupable)
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
        math(EXPR units "(${sources} + ${LAYOUT_CUDA_CHECK_GROUP_SIZE} - 1) / ${LAYOUT_CUDA_CHECK_GROUP_SIZE}")
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
                layout_cuda_write_group(${carrier} ${chunk})
            endif()
        endwhile()
    endforeach()
    layout_remove_stale_cuda_groups()
endfunction()
