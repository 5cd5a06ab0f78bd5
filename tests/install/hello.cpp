// hello.c in C++: shmem.h must be usable from C++ and link without name mangling.
#include <shmem.h>
#include <iostream>
#include <string>

int main()
{
    shmem_init();
    std::string line = "hello from PE " + std::to_string(shmem_my_pe()) + " of " +
                       std::to_string(shmem_n_pes());
    std::cout << line << std::endl;
    shmem_finalize();
    return 0;
}
