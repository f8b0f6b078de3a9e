# LAYOUT_CUDA_CHECK_ONLY: on a machine without a GPU (scripts/test.sh sets it there), the CUDA
# executables of this project are compiled to check them, and nothing more.
#
# Each of their CUDA units still goes through nvcc's front end (host and device) and the
# translation of device code into NVVM IR, where the device-side errors are reported (a __host__
# function called from device code, an identifier undefined in device code):
# -rdc=true --generate-code=arch=compute_<arch>,code=lto_<arch>, and -cuda in place of -c (put
# there by check_only_compile.cmake, the compile launcher). Left out: the device back end (IR to
# PTX, half of the heaviest unit's time even at -O0), the host compiler (nvcc's front end has
# already parsed and checked the host code; the host compiler's own pass over it was a quarter of
# a small unit's time), and the link (an executable of LTO IR objects needs a device link, which
# would generate the device code after all). Each executable is instead a script that says why it
# cannot run and exits 77, so CTest reports its tests as skipped, as they would be without a GPU
# anyway. The GPU machine builds without the option, and runs them. Measured in
# bench/results/local-2026-11-28-o/ci.md and bench/results/local-2026-11-28-p/ci.md.
#
# Where several executables' sources can be checked in one nvcc run, they are
# (check_groups.cmake).
#
# Applied to every executable and object library with a .cu source, once the whole project is
# configured (a deferred call), so that no target has to ask for it. Left as they are: shared
# libraries and modules (examples/python's), compiled and linked as usual, and object libraries
# compiled to PTX (CUDA_PTX_COMPILATION: the layout/cuda header tests, which have next to no
# device code to generate, and no host pass).

option(LAYOUT_CUDA_CHECK_ONLY
       "Compile the CUDA executables to check them, without code generation or linking" OFF)

include(${CMAKE_CURRENT_LIST_DIR}/check_groups.cmake)

# The targets defined in <dir> and the directories below it.
function(layout_targets_below dir out)
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
    foreach(subdir IN LISTS subdirs)
        layout_targets_below(${subdir} below)
        list(APPEND targets ${below})
    endforeach()
    set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(layout_apply_cuda_check_only)
    # The architecture: the first of CMAKE_CUDA_ARCHITECTURES (90, 90-real or 90-virtual).
    list(GET CMAKE_CUDA_ARCHITECTURES 0 arch)
    string(REGEX REPLACE "-.*" "" arch "${arch}")
    set(flags -rdc=true --generate-code=arch=compute_${arch},code=lto_${arch})
    layout_targets_below(${PROJECT_SOURCE_DIR} targets)
    # Executables whose sources can share an nvcc run with others do (check_groups.cmake).
    layout_group_checks(cu ${targets})
    foreach(target IN LISTS targets)
        get_target_property(type ${target} TYPE)
        if(NOT type MATCHES "^(EXECUTABLE|OBJECT_LIBRARY)$")
            continue()
        endif()
        get_target_property(sources ${target} SOURCES)
        list(FILTER sources INCLUDE REGEX "\\.cu$")
        get_target_property(ptx ${target} CUDA_PTX_COMPILATION)
        if(NOT sources OR ptx) # the layout/cuda header tests' device pass alone costs less
            continue()
        endif()
        set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES OFF)
        target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${flags}>")
        # -cuda in place of -c, and an empty object: the launcher.
        set_target_properties(${target} PROPERTIES RULE_LAUNCH_COMPILE
            "${CMAKE_COMMAND} -P ${PROJECT_SOURCE_DIR}/cmake/check_only_compile.cmake --")
        if(type STREQUAL "EXECUTABLE")
            set_target_properties(${target} PROPERTIES RULE_LAUNCH_LINK
                "${CMAKE_COMMAND} -P ${PROJECT_SOURCE_DIR}/cmake/cuda_check_only_link.cmake --")
        endif()
    endforeach()
endfunction()

if(LAYOUT_CUDA_CHECK_ONLY AND LAYOUT_CUDA_ENABLED)
    cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL layout_apply_cuda_check_only)
endif()
