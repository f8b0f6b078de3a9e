// main() of every GPU test executable: gtest's, except that where no CUDA device exists and no
// test failed it exits with 77, which CTest (SKIP_RETURN_CODE) reports as "Skipped". A failing
// test still exits with 1, so nothing is hidden behind the skip.
#include "gpu_test.hpp"

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    const int result = RUN_ALL_TESTS();
    if (result != 0) return result;
    if (!layout_test::cuda_device_available()) {
        std::printf("no CUDA device: the GPU tests of this executable did not run\n");
        return 77;
    }
    return 0;
}
