-- 0012 repaired times no reader could read; there is nothing to put back.
SELECT 1;
