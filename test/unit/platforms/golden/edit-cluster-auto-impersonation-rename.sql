-- ClusterWarehouse edit

-- Users and groups (any database).
-- Connect to database "dev" first.
ALTER GROUP "service_impersonation" RENAME TO "readers";
