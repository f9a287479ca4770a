// Does compute-sanitizer initcheck flag a graph memcpy node whose source the
// kernel node right before it wrote? (session 39: the lazy BSGS graph's
// first ModDown copy after the products kernel). 1D and 2D copies, in a
// graph and eagerly, each on fresh buffers.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void fill(unsigned long long* p, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) p[i] = i;
}
static void enqueue(cudaStream_t s, bool two_d) {
  const size_t n = 9 * 4096 * 2;  // two parts of 9 rows of 4096 words
  unsigned long long *a, *b;
  cudaMalloc(&a, n * 8);
  cudaMalloc(&b, n * 8);
  fill<<<(unsigned)(n / 256), 256, 0, s>>>(a, n);
  if (two_d) {  // part 1's last two rows, as mod_down_copied
    cudaMemcpy2DAsync(b, 65536, a + 9 * 4096 + 7 * 4096, 294912, 65536, 1, cudaMemcpyDeviceToDevice, s);
  } else {
    cudaMemcpyAsync(b, a, 65536, cudaMemcpyDeviceToDevice, s);
  }
}
int main() {
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int two_d = 0; two_d < 2; ++two_d) {
    cudaGraph_t g;
    cudaGraphExec_t e;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    enqueue(s, two_d);
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&e, g, 0);
    printf("graph %s copy:\n", two_d ? "2D" : "1D"); fflush(stdout);
    cudaGraphLaunch(e, s);
    cudaStreamSynchronize(s);
    printf("eager %s copy:\n", two_d ? "2D" : "1D"); fflush(stdout);
    enqueue(s, two_d);
    cudaStreamSynchronize(s);
  }
  printf("done: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
