# The gather and scatter GPU benchmarks (bench/gather_gpu.cu, bench/scatter_gpu.cu, sharing
# bench/algorithms_bench.cuh). Included from bench/CMakeLists.txt after layout_benchmark() is
# defined and Google Benchmark is found:   include(algorithms.cmake)
# Builds nothing where CUDA is not enabled.
if(NOT (CMAKE_CUDA_COMPILER AND (NOT DEFINED LAYOUT_CUDA_ENABLED OR LAYOUT_CUDA_ENABLED)))
  return()
endif()
foreach(name IN ITEMS gather_gpu scatter_gpu)
  layout_benchmark(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.cu)
endforeach()
