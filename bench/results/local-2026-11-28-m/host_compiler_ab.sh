cd /tmp/ci_m/build/test
for u in tests/CMakeFiles/gpu_vector_test.dir/cuda/vector_test.cu.o tests/CMakeFiles/gpu_algorithms_compact_test.dir/cuda/algorithms_compact_test.cu.o tests/CMakeFiles/gpu_algorithms_test.dir/cuda/algorithms_test.cu.o examples/md/CMakeFiles/md_gpu.dir/md.cu.o tests/mpi/CMakeFiles/mpi_gpu_device_halo_test.dir/device_halo_test.cu.o tests/CMakeFiles/gpu_copy_test.dir/cuda/copy_test.cu.o; do
  cmd=$(ninja -t commands $u | tail -1 | sed 's/ -MD -MT [^ ]* -MF [^ ]*//; s/ -o [^ ]*\.o//')
  for cc in g++ clang++; do
    s=$(date +%s.%N); eval "$cmd -ccbin $cc -Xcudafe --diag_suppress=177 -o /tmp/ab_$cc.o" > /tmp/ab_err_$cc.log 2>&1; rc=$?
    echo "$cc rc=$rc $(echo "$(date +%s.%N) - $s" | bc) $(basename $u)"
  done
done
