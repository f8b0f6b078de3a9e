// Experiment behind bench/results/h100-2026-11-23/README.md (kept as evidence, not built):
// variants of the padded transpose at 4096^2 and 8192^2 (the variant list changed between runs).
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
#include <random>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(2);} } while (0)

__global__ void copy_kernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n / 4) reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
}

// Order: 0 = row-major tiles (x fastest), 1 = grouped by G tile-rows, 2 = diagonal
// TileRows: 32 or 64 input rows per block (4 or 8 elements per thread)
template <int Order, int G, int TileRows, bool Stream, int BR = 8>
__global__ void tp(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    __shared__ float tile[TileRows][33];
    const int tiles_x = (cols + 31) / 32, tiles_y = (rows + TileRows - 1) / TileRows;
    int tx, ty;
    if (Order == 0) { tx = blockIdx.x % tiles_x; ty = blockIdx.x / tiles_x; }
    else if (Order == 1) {
        const int id = blockIdx.x, per_group = G * tiles_x;
        const int first = id / per_group * G, gsize = min(G, tiles_y - first), k = id % per_group;
        ty = first + k % gsize; tx = k / gsize;
    } else { // diagonal (square tile grid)
        const int by = blockIdx.x / tiles_x, bx = blockIdx.x % tiles_x;
        ty = bx; tx = (bx + by) % tiles_x;
    }
    int c = tx * 32 + threadIdx.x, r = ty * TileRows + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TileRows; j += BR)
        if (c < cols && r + j < rows) tile[threadIdx.y + j][threadIdx.x] = Stream ? __ldcs(&in[size_t(r + j) * cols + c]) : in[size_t(r + j) * cols + c];
    __syncthreads();
    // out is cols x rows; output tile: 32 rows (input cols) x TileRows cols (input rows)
#pragma unroll
    for (int h = 0; h < TileRows; h += 32) {
        c = ty * TileRows + h + threadIdx.x;
        r = tx * 32 + threadIdx.y;
#pragma unroll
        for (int j = 0; j < 32; j += BR)
            if (c < rows && r + j < cols) {
                float v = tile[h + threadIdx.x][threadIdx.y + j];
                if (Stream) __stcs(&out[size_t(r + j) * rows + c], v); else out[size_t(r + j) * rows + c] = v;
            }
    }
}


// 64x64 tile, 32x8 threads, float2 global accesses on both sides (256 B per warp instruction).
// Assumes cols, rows even (tested on square even sizes only).
__global__ void tp_wide(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    __shared__ float tile[64][65];
    const int tiles_x = (cols + 63) / 64;
    const int tx = blockIdx.x % tiles_x, ty = blockIdx.x / tiles_x;
    const int c = tx * 64 + 2 * threadIdx.x;
#pragma unroll
    for (int j = 0; j < 64; j += 8) {
        const int r = ty * 64 + threadIdx.y + j;
        if (r < rows && c < cols) {
            const float2 v = *reinterpret_cast<const float2*>(&in[size_t(r) * cols + c]);
            tile[threadIdx.y + j][2 * threadIdx.x] = v.x;
            tile[threadIdx.y + j][2 * threadIdx.x + 1] = v.y;
        }
    }
    __syncthreads();
    const int oc = ty * 64 + 2 * threadIdx.x; // column of out = row of in
#pragma unroll
    for (int j = 0; j < 64; j += 8) {
        const int orow = tx * 64 + threadIdx.y + j; // row of out = column of in
        if (orow < cols && oc < rows) {
            float2 v;
            v.x = tile[2 * threadIdx.x][threadIdx.y + j];
            v.y = tile[2 * threadIdx.x + 1][threadIdx.y + j];
            *reinterpret_cast<float2*>(&out[size_t(orow) * rows + oc]) = v;
        }
    }
}

struct variant { const char* name; void (*k)(const float*, float*, int, int); int tile_rows; int br; };

int main() {
    variant vs[] = {
        {"base", tp<0, 1, 32, false>, 32, 8},
        {"rows64", tp<0, 1, 64, false>, 64, 8},
        {"rows128_br16", tp<0, 1, 128, false, 16>, 128, 16},
        {"wide64x64", tp_wide, 64, 8},
    };
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int n : {4096, 8192, 1000}) {
        int rows = n, cols = n == 1000 ? 778 : n;
        size_t cnt = size_t(rows) * cols, bytes = cnt * 4;
        std::vector<float> h(cnt), got(cnt);
        std::mt19937 g(1); for (auto& x : h) x = float(g());
        float *din, *dout; CK(cudaMalloc(&din, bytes)); CK(cudaMalloc(&dout, bytes));
        CK(cudaMemcpy(din, h.data(), bytes, cudaMemcpyHostToDevice));
        auto time = [&](auto launch) {
            for (int i = 0; i < 3; ++i) launch();
            std::vector<float> ms(50);
            for (auto& t : ms) { cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b); cudaEventElapsedTime(&t, a, b); }
            std::nth_element(ms.begin(), ms.begin() + 25, ms.end());
            return 2.0 * bytes / (ms[25] * 1e6);
        };
        for (int round = 0; round < 3; ++round) {
            double copy = time([&] { copy_kernel<<<(cnt / 4 + 255) / 256, 256>>>(din, dout, cnt); });
            printf("%dx%d round %d copy %.1f GB/s\n", rows, cols, round, copy);
            for (auto& v : vs) {
                int tiles = v.k == tp_wide ? ((cols + 63) / 64) * ((rows + 63) / 64) : ((cols + 31) / 32) * ((rows + v.tile_rows - 1) / v.tile_rows);
                                CK(cudaMemset(dout, 0xff, bytes));
                v.k<<<tiles, dim3(32, v.br)>>>(din, dout, rows, cols);
                CK(cudaGetLastError());
                CK(cudaMemcpy(got.data(), dout, bytes, cudaMemcpyDeviceToHost));
                bool ok = true;
                for (int r = 0; r < rows && ok; ++r) for (int c = 0; c < cols; ++c) if (got[size_t(c) * rows + r] != h[size_t(r) * cols + c]) { ok = false; break; }
                double gb = time([&] { v.k<<<tiles, dim3(32, v.br)>>>(din, dout, rows, cols); });
                printf("  %-16s %7.1f GB/s %5.1f%% %s\n", v.name, gb, 100 * gb / copy, ok ? "ok" : "FAIL");
            }
        }
        cudaFree(din); cudaFree(dout);
    }
}
