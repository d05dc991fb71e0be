-- ===== initial-create =====
-- AnalyticsWarehouse initial setup (step 1 of 2): the login
-- Nothing to run: no remote change is needed.

-- ===== create =====
-- AnalyticsWarehouse setup (step 2 of 2): user, schema and grants

-- Run as the database owner, connected to the database.
-- Connect to database "sales" first.
CREATE SCHEMA [service_views] AUTHORIZATION [service_user];
CREATE ROLE [SERVICE_IMPERSONATION] AUTHORIZATION [service_user];
GRANT SELECT ON SCHEMA::[service_views] TO [SERVICE_IMPERSONATION];

-- ===== cleanup =====
-- AnalyticsWarehouse removal (step 1 of 2): schema, role and user

-- Run as the database owner, connected to the database.
-- Connect to database "sales" first.
DROP ROLE [SERVICE_IMPERSONATION];
DECLARE @drop NVARCHAR(MAX) = N''; SELECT @drop = @drop + N'DROP VIEW ' + QUOTENAME(s.name) + N'.' + QUOTENAME(v.name) + N'; ' FROM sys.views AS v JOIN sys.schemas AS s ON s.schema_id = v.schema_id WHERE s.name = N'service_views'; EXEC sp_executesql @drop;
DROP SCHEMA [service_views];

-- ===== post-cleanup =====
-- AnalyticsWarehouse removal (step 2 of 2): the login
-- Nothing to run: no remote change is needed.

-- ===== delete =====
-- AnalyticsWarehouse removal

-- Schema, role and user, in the database.
-- Connect to database "sales" first.
DROP ROLE [SERVICE_IMPERSONATION];
DECLARE @drop NVARCHAR(MAX) = N''; SELECT @drop = @drop + N'DROP VIEW ' + QUOTENAME(s.name) + N'.' + QUOTENAME(v.name) + N'; ' FROM sys.views AS v JOIN sys.schemas AS s ON s.schema_id = v.schema_id WHERE s.name = N'service_views'; EXEC sp_executesql @drop;
DROP SCHEMA [service_views];
