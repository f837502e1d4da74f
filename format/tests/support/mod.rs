pub mod counting_allocator;
