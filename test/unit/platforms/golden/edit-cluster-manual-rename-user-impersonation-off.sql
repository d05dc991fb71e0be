-- ClusterWarehouse edit

-- Users and groups (any database).
ALTER USER "service_system_user" RENAME TO "renamed_user";
ALTER USER "renamed_user" PASSWORD 'S3cret-pass';

-- Schema grants, connected to the managed database.
-- Connect to database "service_db" first.
REVOKE USAGE ON SCHEMA "service_policies" FROM GROUP "service_impersonation";

-- Groups no longer used (any database).
DROP GROUP "service_impersonation";
