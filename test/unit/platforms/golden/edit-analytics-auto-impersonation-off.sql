-- AnalyticsWarehouse edit

-- Users and roles, in the database.
-- Connect to database "sales" first.
DROP ROLE [SERVICE_IMPERSONATION];
