-- Recursive Fibonacci, fib(30) = 832040 (same algorithm as programs/fib.asm).
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
return function() return fib(30) end
